package dev.leasehold.etcd;

import dev.leasehold.PermitsMismatchException;
import dev.leasehold.etcd.internal.QueueKeys;
import io.etcd.jetcd.KeyValue;

import java.util.List;

/**
 * The rule of one lock kind over a name's queue of keys (see {@link QueueKeys}): which keys ahead
 * of an acquisition's own keep it waiting, and what it watches meanwhile.
 */
interface QueueRule {

    /** What a blocked acquisition watches: one key, or (for a semaphore) every key of the queue. */
    record Watch(KeyValue key, boolean wholeQueue) {
    }

    /** The tag of this kind's keys. */
    String tag();

    /**
     * Whether the acquisition whose key is {@code ahead.size()}-th in {@code queue} may hold.
     *
     * @param ahead the queue's keys created before the acquisition's own, oldest first
     * @param all   every key of the queue, oldest first
     * @return null if it holds, else what to watch for its turn
     * @throws PermitsMismatchException if a semaphore's live permits were taken under another number
     */
    Watch blockedBy(QueueKeys queue, String name, List<KeyValue> ahead, List<KeyValue> all);

    /** Mutex, fair lock, write lock: waits for every earlier lock key; permits are not its business. */
    QueueRule EXCLUSIVE = new QueueRule() {
        @Override
        public String tag() {
            return String.valueOf(QueueKeys.EXCLUSIVE);
        }

        @Override
        public Watch blockedBy(QueueKeys queue, String name, List<KeyValue> ahead, List<KeyValue> all) {
            return nearest(queue, ahead, QueueKeys.EXCLUSIVE, QueueKeys.SHARED);
        }
    };

    /** Read lock: waits only for earlier exclusive keys. */
    QueueRule READ = new QueueRule() {
        @Override
        public String tag() {
            return String.valueOf(QueueKeys.SHARED);
        }

        @Override
        public Watch blockedBy(QueueKeys queue, String name, List<KeyValue> ahead, List<KeyValue> all) {
            return nearest(queue, ahead, QueueKeys.EXCLUSIVE);
        }
    };

    /**
     * A semaphore of {@code permits}: holds while fewer than {@code permits} permit keys are ahead.
     * With several permits any earlier permit's release may free a place, so a blocked one watches
     * the whole queue (every release wakes every waiter of the name); with one permit it watches the
     * nearest earlier permit, as a lock does.
     */
    static QueueRule permits(int permits) {
        return new QueueRule() {
            @Override
            public String tag() {
                return String.valueOf(QueueKeys.PERMIT) + permits;
            }

            @Override
            public Watch blockedBy(QueueKeys queue, String name, List<KeyValue> ahead, List<KeyValue> all) {
                for (KeyValue entry : all) {
                    if (queue.kindOf(entry.getKey()) == QueueKeys.PERMIT && queue.permitsOf(entry.getKey()) != permits) {
                        throw new PermitsMismatchException(name, queue.permitsOf(entry.getKey()), permits);
                    }
                }
                long before = ahead.stream().filter(entry -> queue.kindOf(entry.getKey()) == QueueKeys.PERMIT).count();
                if (before < permits) {
                    return null;
                }
                // One permit: like a lock, only the nearest earlier permit's deletion can be the one
                // that lets this one in. More: any earlier permit's can.
                return permits == 1 ? nearest(queue, ahead, QueueKeys.PERMIT) : new Watch(ahead.get(ahead.size() - 1), true);
            }
        };
    }

    /** The last key of {@code ahead} whose kind is one of {@code kinds}, as a watch, or null. */
    private static Watch nearest(QueueKeys queue, List<KeyValue> ahead, char... kinds) {
        for (int i = ahead.size() - 1; i >= 0; i--) {
            char kind = queue.kindOf(ahead.get(i).getKey());
            for (char blocking : kinds) {
                if (kind == blocking) {
                    return new Watch(ahead.get(i), false);
                }
            }
        }
        return null;
    }
}
