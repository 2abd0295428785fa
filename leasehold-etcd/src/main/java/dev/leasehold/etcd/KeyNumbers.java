package dev.leasehold.etcd;

import io.etcd.jetcd.ByteSequence;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The numbers that name one session's keys under each lock name
 * ({@code <tag>-<session lease id>-<number>}, see {@code QueueKeys}). A number comes back to the
 * next acquisition of the same name once its key was deleted ({@link Claim#free()}), so a name's
 * acquisitions on one session reuse a few key names instead of leaving a new deleted key each time.
 *
 * <p>Why: etcd keeps every deleted key in its index until the history is compacted (never, unless
 * the cluster is configured to), and every acquisition reads its lock's queue by prefix, which walks
 * the deleted keys under it too. With a new name per acquisition, a busy lock name got slower the
 * longer it was used ({@code EtcdHistoryBench}).
 *
 * <p>Why reuse is safe: a write of a key that lands after its acquisition ended cannot touch the
 * key of the next acquisition with the number. The release's delete is guarded on the key's value,
 * the acquisition's own holder id, which no other acquisition shares ({@link QueueWrites#delete});
 * a create is guarded on the key's absence. A number is freed only when its acquisition ended
 * cleanly: every attempt answered and the key deleted; any other end ({@link Claim#retire()}) never
 * hands it out again, so an attempt whose answer was lost cannot create its key under the next
 * holder's name either. What is left is a create that jetcd repeated by itself after a failed
 * connection and whose first request the servers applied after the repeat's answer and the release:
 * it puts the old holder's key back, which blocks the name as the same late create would without
 * reuse, and the next acquisition with the number is refused loudly instead of waiting behind it.
 * Renewals and handoffs read their key's create revision, so none takes that key for its own.
 *
 * <p>Numbers come in blocks of 64 per name; a name whose block is full or was dropped gets a new
 * block of fresh numbers, never used before on this session; so a name with more than 64 keys of
 * one session at once (64 threads of one client waiting on one lock) gets new names again. State is
 * kept for names in use, and idle ones are dropped once the names kept exceed {@link #IDLE_KEPT} or
 * twice the names in use: a client that locks a million distinct names keeps no state for each.
 */
final class KeyNumbers {

    private static final int BLOCK = Long.SIZE;
    /** Idle names whose numbers are remembered for reuse; beyond, idle ones are dropped (their next use starts a new block). */
    static final int IDLE_KEPT = 4_096;

    /** One name's block: numbers {@code first} to {@code first + 63}; a set bit is a number in use, or retired. */
    private static final class Block {
        final long first;
        long inUse;
        long retired;

        Block(long first) {
            this.first = first;
        }

        boolean full() {
            return (inUse | retired) == -1L;
        }
    }

    private final AtomicLong blocks = new AtomicLong();
    private final Map<ByteSequence, Block> byName = new ConcurrentHashMap<>();
    /** The map's size above which idle names are dropped; raised when most names are in use. */
    private volatile int trimAbove = IDLE_KEPT;

    /** A number for a new acquisition's key under {@code directory} that no live key of this session has. */
    Claim claim(ByteSequence directory) {
        long[] number = new long[1];
        byName.compute(directory, (name, block) -> {
            Block current = block == null || block.full() ? new Block(blocks.getAndIncrement() * BLOCK) : block;
            int free = Long.numberOfTrailingZeros(~(current.inUse | current.retired));
            current.inUse |= 1L << free;
            number[0] = current.first + free;
            return current;
        });
        if (byName.size() > trimAbove) {
            trim();
        }
        return new Claim(directory, number[0]);
    }

    /** Names this session remembers: in use, or idle and kept for reuse. */
    int names() {
        return byName.size();
    }

    private void trim() {
        // Raised first, so that the claims made meanwhile do not trim too.
        trimAbove = Integer.MAX_VALUE;
        for (ByteSequence name : byName.keySet()) {
            byName.computeIfPresent(name, (ignored, block) -> block.inUse == 0 ? null : block);
        }
        trimAbove = Math.max(IDLE_KEPT, 2 * byName.size());
    }

    private void end(ByteSequence directory, long number, boolean reusable) {
        byName.computeIfPresent(directory, (name, block) -> {
            long offset = number - block.first;
            // A number of a block replaced since (full, or dropped while idle) is never used again.
            if (offset >= 0 && offset < BLOCK) {
                block.inUse &= ~(1L << offset);
                if (!reusable) {
                    block.retired |= 1L << offset;
                }
            }
            return block;
        });
    }

    /** One acquisition's number; ended once, by whichever of {@link #free()} and {@link #retire()} comes first. */
    final class Claim {
        private final ByteSequence directory;
        private final long number;
        private final AtomicBoolean ended = new AtomicBoolean();

        private Claim(ByteSequence directory, long number) {
            this.directory = directory;
            this.number = number;
        }

        long number() {
            return number;
        }

        /** The key was deleted and every write of it answered: the next acquisition of the name may use the number. */
        void free() {
            if (ended.compareAndSet(false, true)) {
                end(directory, number, true);
            }
        }

        /** The key may live on, or a write of it may still land: the number is never handed out again. */
        void retire() {
            if (ended.compareAndSet(false, true)) {
                end(directory, number, false);
            }
        }
    }
}
