package dev.leasehold.etcd;

import dev.leasehold.PermitsMismatchException;
import dev.leasehold.etcd.internal.QueueKeys;
import dev.leasehold.spi.QueueEntry;
import io.etcd.jetcd.KeyValue;

import java.util.ArrayList;
import java.util.List;

/**
 * One lock kind over a name's queue of keys (see {@link QueueKeys}): the kind's key tag, and the
 * core {@link dev.leasehold.spi.QueueRule} (the one answer for every queue backend, issue 19 defect
 * 7) applied to the keys. Which kinds exclude each other, and why grants follow creation order across
 * every kind (so a lease's token, its key's create revision, exceeds every token granted before it),
 * is stated there.
 */
interface QueueRule {

    /** What a blocked acquisition watches: one key, or every key of the queue. */
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
     * @throws PermitsMismatchException if a permit ahead was taken under another number of permits
     * @throws IllegalStateException if a key under the name's directory is not one of Leasehold's
     */
    Watch blockedBy(QueueKeys queue, String name, List<KeyValue> ahead, List<KeyValue> all);

    /** Mutex, fair lock, write lock. */
    QueueRule EXCLUSIVE = of(QueueKeys.EXCLUSIVE, 0);

    /** Read lock. */
    QueueRule READ = of(QueueKeys.SHARED, 0);

    /** A permit of a semaphore of {@code permits}. */
    static QueueRule permits(int permits) {
        return of(QueueKeys.PERMIT, permits);
    }

    private static QueueRule of(char kind, int permits) {
        return new QueueRule() {
            @Override
            public String tag() {
                return kind == QueueKeys.PERMIT ? String.valueOf(kind) + permits : String.valueOf(kind);
            }

            @Override
            public Watch blockedBy(QueueKeys queue, String name, List<KeyValue> ahead, List<KeyValue> all) {
                int mine = ahead.size();
                List<QueueEntry> entries = new ArrayList<>(mine + 1);
                for (KeyValue key : ahead) {
                    entries.add(entry(queue, key));
                }
                entries.add(entry(queue, all.get(mine)));
                dev.leasehold.spi.QueueRule.Decision decision = dev.leasehold.spi.QueueRule.decide(name, entries, mine);
                if (decision.granted()) {
                    return null;
                }
                return decision.watchesWholeQueue() ? new Watch(ahead.get(mine - 1), true)
                        : new Watch(ahead.get(decision.watch()), false);
            }
        };
    }

    /** The neutral entry of one of the queue's keys. */
    private static QueueEntry entry(QueueKeys queue, KeyValue key) {
        return switch (queue.kindOf(key.getKey())) {
            case QueueKeys.EXCLUSIVE -> QueueEntry.exclusive();
            case QueueKeys.SHARED -> QueueEntry.read();
            case QueueKeys.PERMIT -> {
                int permits = queue.permitsOf(key.getKey());
                if (permits < 1) {
                    throw new IllegalStateException("etcd key " + key.getKey() + " is not a Leasehold permit key;"
                            + " something else writes under the key prefix");
                }
                yield QueueEntry.permit(permits);
            }
            default -> throw new IllegalStateException("etcd key " + key.getKey() + " is not a Leasehold key;"
                    + " something else writes under the key prefix");
        };
    }
}
