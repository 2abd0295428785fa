package dev.leasehold.etcd;

import dev.leasehold.Lease;
import dev.leasehold.LeaseholdException;
import dev.leasehold.LockOptions;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.testkit.fault.FaultProxy;
import dev.leasehold.testkit.junit.TestServer;
import io.etcd.jetcd.Client;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A hold-at-least release whose move of the key onto its keep lease commits on the server while its
 * answer is lost (the proxy holds the member's replies from that {@code Txn} on): the release fails
 * for the holder, but the server keeps the key on a lease of the keep time, so the lock must stay
 * held that long (docs/guarantees.md, Hold-at-least: kept by the server's own expiry). The client's
 * clean-up of failed releases (a key on a session deleted once the ttl has passed) must not cut
 * that hold short.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EtcdLostKeepAnswerTest {

    @RegisterExtension
    static final TestServer<EtcdCluster> cluster = TestServer.perClass(() -> EtcdCluster.start(1));

    private FaultProxy proxy;
    private Client jetcd;
    private EtcdLockClient locks;
    private EtcdLockClient other;

    @AfterEach
    void close() {
        if (proxy != null) {
            proxy.pass();
        }
        for (AutoCloseable resource : new AutoCloseable[] {other, locks, jetcd, proxy}) {
            try {
                if (resource != null) {
                    resource.close();
                }
            } catch (Exception ignored) {
                // best effort
            }
        }
    }

    @Test
    void aKeepWhoseAnswerIsLostStillHoldsTheLockForTheKeepTime() throws Exception {
        proxy = FaultProxy.start("127.0.0.1", cluster.get().clientPort(0));
        HoldReplyOfTxnAfterGrant hold = new HoldReplyOfTxnAfterGrant(proxy);
        jetcd = Client.builder().endpoints("http://127.0.0.1:" + proxy.port()).interceptor(hold).build();
        locks = EtcdLocks.builder().client(jetcd).operationTimeout(Duration.ofMillis(500)).connect();
        other = EtcdLocks.connect(cluster.get().endpoints());
        // A 2 s session; kept 10 s from the acquire's send, so about 10 s from the release below.
        LockOptions options = LockOptions.watchdog(Duration.ofSeconds(2)).holdAtLeast(Duration.ofSeconds(10));
        Lease lease = locks.lock("kept-lost-answer", options).acquire(Duration.ofSeconds(5));

        long releasedAt = System.nanoTime();
        hold.arm();
        assertThatThrownBy(lease::release).isInstanceOf(LeaseholdException.class);
        assertThat(hold.held()).as("the move's Txn went out after the keep lease's grant").isEqualTo(1);
        proxy.cutAll();
        proxy.pass();

        // The server keeps the key about 10 s; wait for it up to 6 s from the release.
        long waitMillis = Math.max(0, 6_000 - (System.nanoTime() - releasedAt) / 1_000_000);
        Optional<Lease> taken = other.lock("kept-lost-answer").tryAcquire(Duration.ofMillis(waitMillis));
        try {
            assertThat(taken).as("the lock was freed %d ms after the release, before its 10 s hold",
                    (System.nanoTime() - releasedAt) / 1_000_000).isEmpty();
        } finally {
            taken.ifPresent(Lease::release);
        }
    }

    /**
     * Once armed, holds the member's replies from the first {@code Txn} sent after a
     * {@code LeaseGrant} on: the request reaches the member, its answer does not reach the client.
     */
    private static final class HoldReplyOfTxnAfterGrant implements ClientInterceptor {

        private final FaultProxy proxy;
        private final AtomicInteger state = new AtomicInteger(); // 0 off, 1 armed, 2 grant seen, 3 held
        private final AtomicInteger held = new AtomicInteger();

        HoldReplyOfTxnAfterGrant(FaultProxy proxy) {
            this.proxy = proxy;
        }

        void arm() {
            state.set(1);
        }

        int held() {
            return held.get();
        }

        @Override
        public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
            String name = method.getBareMethodName();
            if ("LeaseGrant".equals(name)) {
                state.compareAndSet(1, 2);
            } else if ("Txn".equals(name) && state.compareAndSet(2, 3)) {
                proxy.holdReplies();
                held.incrementAndGet();
            }
            return next.newCall(method, options);
        }
    }
}
