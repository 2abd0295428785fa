package dev.leasehold.examples.migration;

import dev.leasehold.DistributedLock;
import dev.leasehold.DistributedReadWriteLock;
import dev.leasehold.DistributedSemaphore;
import dev.leasehold.Lease;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.MultiLease;
import dev.leasehold.ReentrantLeaseLock;

import java.time.Duration;
import java.util.Optional;

/** docs/migration-from-redisson.md's ports, each beside its {@link RedissonSide} original. */
final class LeaseholdSide {

    private LeaseholdSide() {
    }

    static void lockWithLeaseTime(LockClient locks, Work work) {
        // tag::rlock[]
        DistributedLock lock = locks.lock("order:123", LockOptions.fixedLease(Duration.ofSeconds(10)));
        Optional<Lease> lease = lock.tryAcquire(Duration.ofSeconds(5));  // empty if the wait elapsed
        if (lease.isPresent()) {
            try (Lease held = lease.get()) {
                work.run(held.token());                // pass the token to a guard
            }                                          // after the 10 s: ALREADY_LOST, no exception
        }
        // end::rlock[]
    }

    static void watchdog(LockClient locks, Work work) {
        // tag::watchdog[]
        // Redisson: lock.tryLock(5, -1, TimeUnit.SECONDS), leaseTime -1 = "renew while held"
        DistributedLock lock = locks.lock("order:123", LockOptions.watchdog(Duration.ofSeconds(30)));
        try (Lease lease = lock.acquire(Duration.ofSeconds(5))) {   // renewed every 10 s until closed
            work.run(lease.token());
        }
        // end::watchdog[]
    }

    static void reentrant(LockClient locks, Work work) {
        // tag::reentrant[]
        ReentrantLeaseLock lock = locks.lock("order:123").asJavaLock();   // reentrant per thread, like RLock
        lock.lock();
        try {
            lock.lock();                               // re-entry: counted locally, no round trip
            try {
                long token = lock.currentLease().orElseThrow().token();  // the same token at every depth
                work.run(token);
            } finally {
                lock.unlock();
            }
        } finally {
            lock.unlock();                             // the last unlock releases
        }
        // end::reentrant[]
    }

    static void readWriteLock(LockClient locks, Work work) {
        // tag::rreadwritelock[]
        DistributedReadWriteLock prices = locks.readWriteLock("prices");
        try (Lease read = prices.readLock().acquire(Duration.ofSeconds(5))) {
            work.run();                                // many readers at once
        }
        try (Lease write = prices.writeLock().acquire(Duration.ofSeconds(5))) {
            work.run(write.token());                   // alone; its token exceeds every reader's
        }
        // end::rreadwritelock[]
    }

    static void semaphore(LockClient locks, Work work) {
        // tag::rsemaphore[]
        DistributedSemaphore exports = locks.semaphore("exports", 3);      // the number travels with each acquire
        try (Lease permit = exports.acquire(Duration.ofSeconds(10))) {    // one permit, renewed while held
            work.run(permit.token());
        }                                              // a crashed holder's permit comes back after its ttl
        // end::rsemaphore[]
    }

    static void permitExpirableSemaphore(LockClient locks, Work work) {
        // tag::rpermitexpirablesemaphore[]
        DistributedSemaphore exports = locks.semaphore("exports-expirable", 3,
                LockOptions.fixedLease(Duration.ofSeconds(30)));             // expires after 30 s, never renewed
        try (Lease permit = exports.acquire(Duration.ofSeconds(10))) {     // the lease is the permit id
            work.run(permit.token());
        }
        // end::rpermitexpirablesemaphore[]
    }

    static void fencedLock(LockClient locks, Work work) {
        // tag::rfencedlock[]
        try (Lease lease = locks.lock("order:124").acquire(Duration.ofSeconds(5))) {
            work.run(lease.token());                   // every lease of every kind has a token
        }
        // end::rfencedlock[]
    }

    static void multiLock(LockClient locks, Work work) {
        // tag::redissonmultilock[]
        try (MultiLease both = locks.multiLock("account:1", "account:2").acquire(Duration.ofSeconds(5))) {
            work.run(both.lease("account:1").token()); // all or nothing, taken in name order
        }
        // end::redissonmultilock[]
    }
}
