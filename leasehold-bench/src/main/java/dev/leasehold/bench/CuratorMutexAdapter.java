package dev.leasehold.bench;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;

import java.util.concurrent.TimeUnit;

/**
 * Curator's {@link InterProcessMutex}, the ZooKeeper lock most Java users reach for, on its own
 * Curator client. It issues no fencing token. A mutex is owned by the thread that acquired it, which
 * matches the {@link LockAdapter} contract.
 */
final class CuratorMutexAdapter implements LockAdapter {

    private static final String ROOT = "/curator-bench/";

    private final CuratorFramework curator;

    private CuratorMutexAdapter(CuratorFramework curator) {
        this.curator = curator;
    }

    /** Connects a new Curator client and waits up to 10 s for its session. */
    static CuratorMutexAdapter connect(String connectString) {
        CuratorFramework curator = CuratorFrameworkFactory.newClient(connectString, new ExponentialBackoffRetry(100, 3));
        curator.start();
        try {
            if (!curator.blockUntilConnected(10, TimeUnit.SECONDS)) {
                curator.close();
                throw new IllegalStateException("Curator did not connect to " + connectString + " within 10 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            curator.close();
            throw new IllegalStateException("interrupted while connecting Curator", e);
        }
        return new CuratorMutexAdapter(curator);
    }

    @Override
    public String label() {
        return "Curator InterProcessMutex";
    }

    @Override
    public Handle lock(String name) {
        InterProcessMutex mutex = new InterProcessMutex(curator, ROOT + name);
        return () -> {
            try {
                mutex.acquire();
            } catch (Exception e) {
                throw new IllegalStateException("InterProcessMutex.acquire failed", e);
            }
            return Held.of(NO_TOKEN, () -> {
                try {
                    mutex.release();
                } catch (Exception e) {
                    throw new IllegalStateException("InterProcessMutex.release failed", e);
                }
            });
        };
    }

    @Override
    public void close() {
        curator.close();
    }
}
