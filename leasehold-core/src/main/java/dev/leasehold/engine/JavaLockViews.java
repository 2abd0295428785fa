package dev.leasehold.engine;

import dev.leasehold.DistributedLock;
import dev.leasehold.ReentrantLeaseLock;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code asJavaLock()} views of one client, one per lock kind and name, so that reentrancy
 * belongs to the name (as Redisson users expect), not to one {@link DistributedLock} object: a
 * method that locks {@code lock("x").asJavaLock()} and calls another that does the same through a
 * new lock object re-enters instead of waiting for itself.
 *
 * <p>Views are held weakly: a name whose view nobody uses any more leaves no trace, however many
 * names a client locks over its life. A view stays registered while a thread holds it (each
 * hold references its view) or while any lock object or caller still references it.
 */
final class JavaLockViews {

    /** A registered view, removed from the map once collected. */
    private static final class ViewRef extends WeakReference<ReentrantLeaseLock> {
        final WaitQueues.Key key;

        ViewRef(WaitQueues.Key key, ReentrantLeaseLock view, ReferenceQueue<ReentrantLeaseLock> queue) {
            super(view, queue);
            this.key = key;
        }
    }

    private final ConcurrentHashMap<WaitQueues.Key, ViewRef> views = new ConcurrentHashMap<>();
    private final ReferenceQueue<ReentrantLeaseLock> collected = new ReferenceQueue<>();

    /**
     * The view of {@code key}, made over {@code lock} if there is none yet: it then acquires with
     * that lock's options (every later lock object of the same kind and name shares it).
     */
    ReentrantLeaseLock of(WaitQueues.Key key, DistributedLock lock) {
        purge();
        ReentrantLeaseLock[] view = {null};
        views.compute(key, (k, ref) -> {
            ReentrantLeaseLock existing = ref == null ? null : ref.get();
            if (existing != null) {
                view[0] = existing;
                return ref;
            }
            view[0] = new ReentrantLeaseLock(lock);
            return new ViewRef(k, view[0], collected);
        });
        return view[0];
    }

    /** The view registered for {@code key}, or null: never makes one. */
    ReentrantLeaseLock registered(WaitQueues.Key key) {
        ViewRef ref = views.get(key);
        return ref == null ? null : ref.get();
    }

    private void purge() {
        ViewRef gone;
        while ((gone = (ViewRef) collected.poll()) != null) {
            views.remove(gone.key, gone);
        }
    }
}
