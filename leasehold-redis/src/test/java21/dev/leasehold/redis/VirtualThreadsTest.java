package dev.leasehold.redis;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.launcher.RedisServer;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Virtual threads (JDK 21+, the {@code vthreads} profile): 10,000 of them contend for 100 locks on a
 * real server, each lock excludes, and JFR's {@code jdk.VirtualThreadPinned} events (every park of
 * a pinned virtual thread, threshold 0) show no pinning by Leasehold's code (see {@link Pin}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class VirtualThreadsTest {

    private static final int THREADS = 10_000;
    private static final int LOCKS = 100;
    private static final String PINNED = "jdk.VirtualThreadPinned";
    /** Before JDK 24 (JEP 491) a virtual thread blocking while it holds a monitor pins its carrier. */
    private static final boolean MONITORS_PIN = Runtime.version().feature() < 24;

    @TempDir
    Path dir;

    @Test
    void tenThousandVirtualThreadsOnAHundredLocksExcludeAndNeverPinInLeasehold() throws Exception {
        List<String> pinnedInLeasehold;
        AtomicInteger[] inside = new AtomicInteger[LOCKS];
        AtomicLong[] counters = new AtomicLong[LOCKS];
        ConcurrentLinkedQueue<String> overlaps = new ConcurrentLinkedQueue<>();
        // A generous operation timeout: 10,000 threads on a busy 2-core machine are slow, not wrong.
        try (RedisServer server = RedisServer.builder().start();
             RedisLockClient client = RedisLocks.builder().uri(server.uri()).operationTimeout(Duration.ofSeconds(20)).connect();
             Recording recording = pinnedEvents()) {
            for (int i = 0; i < LOCKS; i++) {
                inside[i] = new AtomicInteger();
                counters[i] = new AtomicLong();
            }
            warmUp(client);
            recording.start();
            List<Future<Long>> tokens = new ArrayList<>();
            try (ExecutorService virtual = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 0; i < THREADS; i++) {
                    int slot = i % LOCKS;
                    DistributedLock lock = client.lock("vthreads:" + slot);
                    tokens.add(virtual.submit(() -> {
                        try (Lease lease = lock.acquire(Duration.ofSeconds(90))) {
                            if (inside[slot].incrementAndGet() != 1) {
                                overlaps.add(lock.name());
                            }
                            counters[slot].incrementAndGet();
                            Thread.sleep(1);
                            inside[slot].decrementAndGet();
                            return lease.token();
                        }
                    }));
                }
            }
            recording.stop();
            for (Future<Long> token : tokens) {
                assertThat(token.get()).isPositive();
            }
            pinnedInLeasehold = pins(recording).stream().filter(Pin::inLeasehold).map(Pin::stack).toList();
            assertThat(client.heldLeases()).isZero();
        }
        assertThat(overlaps).as("two holders of one lock at once").isEmpty();
        for (AtomicLong counter : counters) {
            assertThat(counter.get()).isEqualTo(THREADS / LOCKS);
        }
        assertThat(pinnedInLeasehold).as("virtual threads pinned by Leasehold's code").isEmpty();
    }

    /**
     * A first round on virtual threads, before the recording: loading and initializing classes pins
     * whatever code triggers it, once per class, so the measured run starts with the classes loaded.
     */
    private static void warmUp(RedisLockClient client) throws Exception {
        try (ExecutorService virtual = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> rounds = new ArrayList<>();
            for (int i = 0; i < 2 * LOCKS; i++) {
                DistributedLock lock = client.lock("vthreads:" + (i % LOCKS));
                rounds.add(virtual.submit(() -> lock.acquire(Duration.ofSeconds(90)).release()));
            }
            for (Future<?> round : rounds) {
                round.get();
            }
        }
    }

    /**
     * The detector itself: JFR records a virtual thread pinned in a class initializer (on every JDK)
     * with the stack that names it, and the rule sets that class-initialization pin aside; on JDK 21
     * to 23, where {@code synchronized} pins, a block inside a Leasehold-package monitor is flagged.
     */
    @Test
    void theDetectorSeesPinnedVirtualThreads() throws Exception {
        try (Recording recording = pinnedEvents()) {
            recording.start();
            Thread.ofVirtual().start(() -> assertThat(SlowInitializer.VALUE).isEqualTo(42)).join();
            Object monitor = new Object();
            Thread.ofVirtual().start(() -> {
                synchronized (monitor) {
                    sleep(20);
                }
            }).join();
            recording.stop();
            List<Pin> pins = pins(recording);
            assertThat(pins).anySatisfy(pin -> {
                assertThat(pin.stack()).contains("SlowInitializer.<clinit>");
                assertThat(pin.inLeasehold()).isFalse();
            });
            if (MONITORS_PIN) {
                assertThat(pins).anySatisfy(pin -> {
                    assertThat(pin.stack()).contains("VirtualThreadsTest.lambda");
                    assertThat(pin.inLeasehold()).isTrue();
                });
            }
        }
    }

    /**
     * The rule on stacks JFR reported: a park in the Redis driver's code under a Leasehold call
     * (as CI once saw on JDK 25, in Netty's promise listeners) is Leasehold's only while monitors
     * pin (JDK 21 to 23); a park in Leasehold's own code, or in the JDK called by it, always is; a
     * class being initialized is never.
     */
    @Test
    void aPinCountsWhenLeaseholdsCodeBlocks() {
        List<String> inDriver = List.of("io.netty.util.concurrent.DefaultPromise.notifyListeners",
                "io.lettuce.core.AbstractRedisAsyncCommands.evalsha", "dev.leasehold.redis.internal.RedisScript.run",
                "java.lang.VirtualThread.run");
        List<String> inLeasehold = List.of("java.util.concurrent.locks.LockSupport.park",
                "dev.leasehold.engine.ManagedLease.release", "java.lang.VirtualThread.run");
        List<String> initializing = List.of("java.lang.Thread.sleep", "dev.leasehold.redis.Example.<clinit>",
                "java.lang.VirtualThread.run");
        assertThat(Pin.of(null, inDriver, true).inLeasehold()).isTrue();
        assertThat(Pin.of("Native or VM frame on stack", inDriver, false).inLeasehold()).isFalse();
        assertThat(Pin.of(null, inLeasehold, true).inLeasehold()).isTrue();
        assertThat(Pin.of("Native or VM frame on stack", inLeasehold, false).inLeasehold()).isTrue();
        assertThat(Pin.of(null, initializing, true).inLeasehold()).isFalse();
        assertThat(Pin.of("Native or VM frame on stack", initializing, false).inLeasehold()).isFalse();
    }

    /** Blocks in its static initializer, where a virtual thread cannot unmount. */
    private static final class SlowInitializer {
        static final int VALUE;

        static {
            sleep(50);
            VALUE = 42;
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static Recording pinnedEvents() {
        Recording recording = new Recording();
        recording.enable(PINNED).withThreshold(Duration.ZERO).withStackTrace();
        return recording;
    }

    /**
     * One pinned park: its reason (JDK 24+), its stack one frame per line, and whether Leasehold's
     * code pinned it. Loading or initializing a class ({@code loadClass} or {@code <clinit>} frame)
     * pins once per class, whatever code touched it first, and is set aside: Leasehold's static
     * initializers do no blocking work. On JDK 21 to 23 a monitor held anywhere on the stack pins,
     * so any {@code dev.leasehold} frame counts. From JDK 24 on monitors no longer pin, and the pin
     * is the blocking code's: it counts when the innermost frame outside the JDK is Leasehold's.
     * A park inside the Redis driver's own code (Netty, Lettuce) under a Leasehold call is the
     * driver's, printed for diagnosis but not Leasehold's to fix.
     */
    private record Pin(String stack, boolean inLeasehold) {

        /** A pin from its reason (null before JDK 24) and its frames, innermost first, as type.method. */
        static Pin of(String reason, List<String> frames, boolean monitorsPin) {
            StringBuilder stack = new StringBuilder();
            if (reason != null) {
                stack.append("pinned: ").append(reason).append('\n');
            }
            boolean anyOurs = false;
            boolean classLoading = false;
            String blocker = null;
            for (String frame : frames) {
                classLoading |= frame.endsWith(".<clinit>") || frame.endsWith(".loadClass");
                anyOurs |= frame.startsWith("dev.leasehold.");
                if (blocker == null && !inJdk(frame)) {
                    blocker = frame;
                }
                stack.append(frame).append('\n');
            }
            boolean ours = monitorsPin ? anyOurs : blocker != null && blocker.startsWith("dev.leasehold.");
            return new Pin(stack.toString(), ours && !classLoading);
        }

        private static boolean inJdk(String frame) {
            return frame.startsWith("java.") || frame.startsWith("jdk.") || frame.startsWith("sun.");
        }
    }

    private List<Pin> pins(Recording recording) throws Exception {
        Path file = dir.resolve("pinned-" + System.nanoTime() + ".jfr");
        recording.dump(file);
        List<Pin> pins = new ArrayList<>();
        for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
            if (!event.getEventType().getName().equals(PINNED) || event.getStackTrace() == null) {
                continue;
            }
            String reason = event.hasField("pinnedReason")
                    ? event.getString("pinnedReason") + "; blocking: " + event.getString("blockingOperation")
                    : null;
            List<String> frames = new ArrayList<>();
            for (RecordedFrame frame : event.getStackTrace().getFrames()) {
                frames.add(frame.getMethod().getType().getName() + "." + frame.getMethod().getName());
            }
            Pin pin = Pin.of(reason, frames, MONITORS_PIN);
            if (!pin.inLeasehold()) {
                System.out.println("Pinned outside Leasehold's code (not counted):\n" + pin.stack());
            }
            pins.add(pin);
        }
        return pins;
    }
}
