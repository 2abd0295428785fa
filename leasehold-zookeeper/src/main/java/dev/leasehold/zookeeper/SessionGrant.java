package dev.leasehold.zookeeper;

import java.time.Duration;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * How long the quorum still grants this client's session, as a lower bound a client can prove: what
 * the {@link dev.leasehold.spi.LockProtocol#grantedFor} of every ZooKeeper lease reports, so that a
 * lease's local deadline never outlasts the session the leader keeps.
 *
 * <p><b>What a confirmed operation proves.</b> A session expires on the <em>leader</em>, one session
 * timeout {@code T} after the leader last heard of it. A client connected to a follower is heard of
 * only indirectly: the follower notes each request and ping of the session (a "touch") and reports
 * its touches in its replies to the leader's pings, which come every {@code tickTime / 2}. An
 * operation that the leader itself processed (an acquire's {@code create}, a renewal's {@code sync})
 * and that was answered proves the follower was in step with the leader when it forwarded it, and,
 * since the follower's link to the leader is one ordered TCP stream, that the leader had received
 * every ping reply the follower sent before. So every touch the follower noted at least one ping
 * interval before it forwarded the operation had reached the leader, and the leader cannot expire
 * the session earlier than {@code T} after that touch. Confirmation alone proves nothing about the
 * future (the leader may expire the session right after it processed the sync, if it last heard
 * of it long before), which is why the bound is counted from an <em>earlier</em> touch:
 * <ul>
 *   <li>an operation of this session sent at {@code s} and confirmed, with {@code s} at least a relay
 *   gap before the current operation's send {@code t}: the leader knew of a touch at or after
 *   {@code s} (the previous confirmed renewal or acquire, or any other lease's);</li>
 *   <li>the floor, {@code t - T/3 - gap}: the ZooKeeper client sends something (a request or a ping)
 *   at least every {@code T/3}, so some touch at or after that time was relayed.</li>
 * </ul>
 * The grant is {@code anchor + T - t}, where the anchor is the later of the two. The relay gap is
 * the ensemble's tickTime when {@link EnsembleCheck} could read it (two ping intervals), else
 * {@code T/3}, which covers two ping intervals whenever {@code T >= 2 × tickTime} (ZooKeeper's
 * default minimum session timeout). The engine subtracts the drift for clock-rate error.
 *
 * <p><b>An isolated leader</b> answers syncs without its quorum until it steps down, at most about
 * {@code (syncLimit + 1) × tickTime} after it last heard from a follower; the followers give up on
 * it {@code syncLimit × tickTime} after they last heard from it, elect a new leader (at least the
 * election's 200 ms finalize wait) which grants every session a fresh full timeout from its
 * start. A lease the isolated leader confirmed at {@code t} ends by {@code anchor + T} with
 * {@code anchor <= t - gap}, before the session can expire on the new leader, as long as the gap
 * covers a tick: hence the gap is one tickTime, and {@code T/3} only when {@code T >= 3 × tickTime}.
 * So: <b>the bound assumes {@code sessionTimeout >= 3 × tickTime} unless the ensemble's tickTime is
 * known</b> ({@link EnsembleCheck}); {@code syncLimit × tickTime} does not enter it.
 *
 * <p>Anchors of an earlier session are never used; confirmed sends are kept, coarsened to the
 * earlier multiple of an eighth of the gap, for one session timeout.
 */
final class SessionGrant {

    private final Supplier<Duration> sessionTimeout;
    private final LongSupplier sessionId;
    private volatile Duration tickTime;
    /** Confirmed send times of the current session (coarsened down), both key and value. */
    private final ConcurrentNavigableMap<Long, Long> confirmed = new ConcurrentSkipListMap<>();
    private volatile long anchoredSession;

    /** The bucket {@link #confirmed} put last, and in which session. */
    private record Kept(long session, long coarse) {
    }

    private volatile Kept lastKept;

    /**
     * @param sessionTimeout the negotiated session timeout
     * @param sessionId      the current session's id (0 when not connected)
     */
    SessionGrant(Supplier<Duration> sessionTimeout, LongSupplier sessionId) {
        this.sessionTimeout = sessionTimeout;
        this.sessionId = sessionId;
    }

    /** The ensemble's tickTime, as {@link EnsembleCheck} read it; shortens the relay gap. */
    void tickTime(Duration tickTime) {
        this.tickTime = tickTime;
    }

    private long gapNanos(long timeoutNanos) {
        Duration tick = tickTime;
        return tick != null ? Math.min(tick.toNanos(), timeoutNanos / 3) : timeoutNanos / 3;
    }

    /** An operation sent at {@code sentAtNanos} was processed by the leader and answered. */
    void confirmed(long sentAtNanos) {
        long session = sessionId.getAsLong();
        if (session != anchoredSession) {
            confirmed.clear();
            lastKept = null;
            anchoredSession = session;
        }
        long timeout = sessionTimeout.get().toNanos();
        long bucket = Math.max(1, gapNanos(timeout) / 8);
        long coarse = Math.floorDiv(sentAtNanos, bucket) * bucket;
        Kept last = lastKept;
        if (last != null && last.session() == session && last.coarse() == coarse) {
            // Most confirmations fall in the bucket just kept: nothing to add, nothing new to prune.
            return;
        }
        confirmed.put(coarse, coarse);
        confirmed.headMap(sentAtNanos - 2 * timeout).clear();
        lastKept = new Kept(session, coarse);
    }

    /**
     * How long after {@code sentAtNanos} the leader still keeps the session, given that the
     * operation sent then was just confirmed.
     */
    Duration grantedFor(long sentAtNanos) {
        long timeout = sessionTimeout.get().toNanos();
        long gap = gapNanos(timeout);
        long anchor = sentAtNanos - timeout / 3 - gap;
        if (sessionId.getAsLong() == anchoredSession) {
            Long earlier = confirmed.floorKey(sentAtNanos - gap);
            if (earlier != null && earlier - anchor > 0) {
                anchor = earlier;
            }
        }
        return Duration.ofNanos(anchor + timeout - sentAtNanos);
    }
}
