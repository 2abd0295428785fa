package dev.leasehold.etcd;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;
import dev.leasehold.LockOptions;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Run in a child JVM by {@link EtcdPausedClientTest}, which SIGSTOPs it while it holds: takes the
 * lock, then loops "check the lease, claim, work 30 ms, write" and reports each step on standard
 * output (times are {@code System.nanoTime()}, CLOCK_MONOTONIC, comparable with the parent's on one
 * machine). Once a check finds the lease invalid it sends the write it was about to send anyway (the
 * stale write of a holder that checked before its stall), reports the loss and exits.
 *
 * <p>Lines: {@code ACQUIRED token sent acquired}, {@code CLAIM at deadline}, {@code WRITE token},
 * {@code INVALID at}, {@code LOST at}.
 */
public final class PausedHolderProbe {

    private PausedHolderProbe() {
    }

    /** Arguments: endpoints, lock name, ttl in milliseconds. */
    public static void main(String[] args) throws Exception {
        Duration ttl = Duration.ofMillis(Long.parseLong(args[2]));
        try (EtcdLockClient client = EtcdLocks.connect(args[0])) {
            DistributedLock lock = client.lock(args[1], LockOptions.watchdog(ttl));
            Lease lease = lock.acquire(Duration.ofSeconds(10));
            long acquired = System.nanoTime();
            long sent = Math.min(acquired, acquired + lease.remaining().toNanos() - ttl.minus(lock.options().drift()).toNanos());
            CompletableFuture<Long> lostAt = lease.lost().toCompletableFuture().thenApply(reason -> System.nanoTime());
            System.out.println("ACQUIRED " + lease.token() + " " + sent + " " + acquired);
            while (true) {
                long now = System.nanoTime();
                if (!lease.isValid()) {
                    System.out.println("INVALID " + now);
                    System.out.println("WRITE " + lease.token());
                    System.out.println("LOST " + lostAt.join());
                    System.out.flush();
                    return;
                }
                System.out.println("CLAIM " + now + " " + (now + lease.remaining().toNanos()));
                Thread.sleep(30);
                System.out.println("WRITE " + lease.token());
            }
        }
    }
}
