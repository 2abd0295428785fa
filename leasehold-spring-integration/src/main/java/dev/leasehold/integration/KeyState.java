package dev.leasehold.integration;

import dev.leasehold.DistributedLock;
import dev.leasehold.Lease;

import java.util.concurrent.locks.ReentrantLock;

/**
 * What a registry knows about one lock key: the thread holding it in this registry (a local
 * {@link ReentrantLock}, so other threads of the registry wait here and only one of them at a time
 * asks the backend), that thread's lease, and how many threads use the key right now, so that
 * {@link LeaseholdLockRegistry#expireUnusedOlderThan(long)} never forgets a key in use.
 */
final class KeyState {

    final String key;
    final DistributedLock remote;
    final ReentrantLock local = new ReentrantLock();
    final LeaseholdLock handle;

    /** Threads holding or trying to lock the key; read and written only inside the registry map's compute for the key. */
    int users;

    /** Written only by the thread that holds {@link #local}; read by others (currentLease, toString). */
    volatile Lease lease;

    private volatile long lastUsedNanos = System.nanoTime();

    KeyState(String key, DistributedLock remote, LeaseholdLock handle) {
        this.key = key;
        this.remote = remote;
        this.handle = handle;
    }

    void touch() {
        lastUsedNanos = System.nanoTime();
    }

    long idleNanos(long now) {
        return now - lastUsedNanos;
    }
}
