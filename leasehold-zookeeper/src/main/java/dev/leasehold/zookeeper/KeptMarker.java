package dev.leasehold.zookeeper;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The stand-in for a lease released within its {@link dev.leasehold.LockOptions#holdAtLeast}: a
 * persistent sequential node in the lock's directory named {@code k} + the released node's name
 * prefix ({@code k<kind>[<permits>]_<holder>~<sequence>}), whose data is how many milliseconds
 * after the marker's own creation time the lock stays held. {@link NodeName#parse} ignores it
 * (its first letter is no kind), so only code that knows markers sees them.
 *
 * <p><b>Why a marker, not a TTL node.</b> A lease's node is ephemeral, so it cannot outlive its
 * session, and a kept lock must survive the holder's process. ZooKeeper's TTL nodes would need
 * {@code zookeeper.extendedTypesEnabled} on every server and are reaped only by the container
 * manager's sweep ({@code znode.container.checkIntervalMs}, a minute by default), so the lock
 * would free a minute late, and not at all on an ensemble without the flag. A marker works on any
 * ensemble and frees on time.
 *
 * <p><b>Server time only.</b> The marker's end is {@code ctime + data}, both the server's: ctime is
 * stamped by the leader when the node is created. An acquirer compares it with its own node's
 * ctime (also the server's) plus the time it has itself seen pass since that create was answered,
 * which is never more than the server saw pass since the ctime: so it never treats a marker as
 * ended before the server's clock passed its end, whatever the client clocks say. The end is at
 * least the release's {@code keepFor} after the release was sent, so the lock stays held until at
 * least {@code acquire send time + holdAtLeast}, as exactly as the leader's wall clock runs: ctime
 * is wall-clock time, so a leader whose clock is stepped forward (or a new leader whose clock is
 * ahead) ends markers early by as much, as a stepped clock expires Redis keys early. Safety never
 * depends on it: tokens order holders whatever the clocks.
 *
 * <p><b>Order and tokens.</b> A live marker counts as its lease's node at the head of the queue,
 * ahead of every node (a kept holder was ahead of every waiter), with the released lease's kind:
 * an exclusive marker keeps everyone out, a read marker only exclusive kinds, a permit marker
 * takes one permit. The marker is created and the released node deleted in one {@code multi}, so
 * the lock never looks free between the two, and any lease granted after the marker ends has a
 * node created after the released one, so a greater czxid: its token exceeds the kept holder's.
 * The first acquirer that finds a marker ended deletes it; the releasing client also deletes it
 * when it ends, if it still runs. A marker nobody acquires after, from a client that died, stays
 * until the next acquire of the name.
 *
 * @param stand the released lease's node name as the queue rule sees it
 * @param node  the marker's name as listed
 */
record KeptMarker(NodeName stand, String node) {

    static final char PREFIX = 'k';

    /** The name to create (the server appends the sequence). */
    static String prefix(char kind, int permits, String holder) {
        return PREFIX + NodeName.prefix(kind, permits, holder);
    }

    /** The data of a marker keeping the lock {@code keepMillis} after its creation. */
    static byte[] data(long keepMillis) {
        return Long.toString(keepMillis).getBytes(StandardCharsets.US_ASCII);
    }

    /** Parses a listed child, or empty if it is no marker. */
    static Optional<KeptMarker> parse(String child) {
        if (child.isEmpty() || child.charAt(0) != PREFIX) {
            return Optional.empty();
        }
        return NodeName.parse(child.substring(1)).map(stand -> new KeptMarker(stand, child));
    }

    /** The server time (ms) until which a marker created at {@code ctime} with {@code data} holds; 0 if unreadable. */
    static long endMillis(long ctime, byte[] data) {
        try {
            return ctime + Long.parseLong(new String(data, StandardCharsets.US_ASCII));
        } catch (NumberFormatException | NullPointerException unreadable) {
            return 0;
        }
    }
}
