package dev.leasehold.zookeeper;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;

import java.time.Duration;

/**
 * A lock holder in its own JVM, for {@link ZooKeeperNemesisTest} to SIGSTOP past its session: it
 * takes lock {@code args[1]} on the ensemble at {@code args[0]} with a session and ttl of
 * {@code args[2]} ms, then prints, every 10 ms, {@code valid <nanoTime>} while its lease is valid,
 * and on the first check that finds it invalid {@code lost <nanoTime>} and exits. After each valid
 * check it attempts a write with its token ({@code write <token>}), which the parent passes through
 * its guard. {@code System.nanoTime()} is {@code CLOCK_MONOTONIC} on Linux, one clock for
 * every process of the machine, so the parent can compare the times with its own.
 */
public final class PausableHolder {

    private PausableHolder() {
    }

    public static void main(String[] args) throws Exception {
        Duration session = Duration.ofMillis(Long.parseLong(args[2]));
        try (ZooKeeperLockClient client = ZooKeeperLocks.builder().connectString(args[0]).sessionTimeout(session).build()) {
            long sent = System.nanoTime();
            Lease lease = client.lock(args[1], LockOptions.watchdog(session)).acquire(Duration.ofSeconds(10));
            System.out.println("acquired " + lease.token() + " " + sent + " " + System.nanoTime());
            while (true) {
                // Check, then write: a pause between the two is the race fencing exists for.
                if (!lease.isValid()) {
                    System.out.println("lost " + System.nanoTime());
                    return;
                }
                System.out.println("valid " + System.nanoTime());
                System.out.println("write " + lease.token());
                Thread.sleep(10);
            }
        }
    }
}
