package dev.leasehold.examples.migration;

import org.redisson.RedissonMultiLock;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;

import java.util.concurrent.TimeUnit;

/** The Redisson code docs/migration-from-redisson.md ports, as it runs on Redisson 4.0. */
final class RedissonSide {

    private RedissonSide() {
    }

    static void lockWithLeaseTime(RedissonClient redisson, Work work) throws InterruptedException {
        // tag::rlock[]
        RLock lock = redisson.getLock("order:123");
        if (lock.tryLock(5, 10, TimeUnit.SECONDS)) {   // wait up to 5 s; held 10 s at most, no watchdog
            try {
                work.run();
            } finally {
                lock.unlock();                         // throws IllegalMonitorStateException if the 10 s ran out
            }
        }
        // end::rlock[]
    }

    static void readWriteLock(RedissonClient redisson, Work work) {
        // tag::rreadwritelock[]
        RReadWriteLock prices = redisson.getReadWriteLock("prices");
        prices.readLock().lock();
        try {
            work.run();                                // many readers at once
        } finally {
            prices.readLock().unlock();
        }
        prices.writeLock().lock();
        try {
            work.run();                                // alone
        } finally {
            prices.writeLock().unlock();
        }
        // end::rreadwritelock[]
    }

    static void semaphore(RedissonClient redisson, Work work) throws InterruptedException {
        // tag::rsemaphore[]
        RSemaphore exports = redisson.getSemaphore("exports");
        exports.trySetPermits(3);
        exports.acquire();                             // a crashed holder's permit never comes back
        try {
            work.run();
        } finally {
            exports.release();
        }
        // end::rsemaphore[]
    }

    static void permitExpirableSemaphore(RedissonClient redisson, Work work) throws InterruptedException {
        // tag::rpermitexpirablesemaphore[]
        RPermitExpirableSemaphore exports = redisson.getPermitExpirableSemaphore("exports-expirable");
        exports.trySetPermits(3);
        String permitId = exports.acquire(30, TimeUnit.SECONDS);   // expires after 30 s, never renewed
        try {
            work.run();
        } finally {
            exports.release(permitId);
        }
        // end::rpermitexpirablesemaphore[]
    }

    static void fencedLock(RedissonClient redisson, Work work) {
        // tag::rfencedlock[]
        RFencedLock lock = redisson.getFencedLock("order:124");
        Long token = lock.lockAndGetToken();
        try {
            work.run(token);
        } finally {
            lock.unlock();
        }
        // end::rfencedlock[]
    }

    static void multiLock(RedissonClient redisson, Work work) {
        // tag::redissonmultilock[]
        RLock both = new RedissonMultiLock(redisson.getLock("account:1"), redisson.getLock("account:2"));
        both.lock();
        try {
            work.run();
        } finally {
            both.unlock();
        }
        // end::redissonmultilock[]
    }
}
