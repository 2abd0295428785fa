package dev.leasehold.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;

/**
 * One re-check timer per lock name and kind for the waiting acquisitions of a protocol that
 * {@link dev.leasehold.spi.LockProtocol#coversWaiters() covers waiters}, instead of one timer per
 * waiter. Why: every waiter of a {@link dev.leasehold.spi.Admission#SHARED} kind (the fair lock)
 * talks to the backend, and re-checks at least every re-check period in case its notification was
 * lost; a thousand waiters in one client then cost a thousand attempts per period, however rarely
 * the lock changes hands. In a group, the timer wakes only the waiter that arrived first, and its
 * attempt covers the others: the backend keeps their registrations, and wakes those that must act
 * (handed the lock, first in line, or no longer registered) through their release signals.
 *
 * <p>A waiter parks in its group between attempts ({@link #join}); the group's timer is due at
 * the earliest delay any member asked for when it joined. When it fires, the member that arrived
 * first leaves with the list of the others to cover, and the timer is set again for the others at
 * the shortest re-check period they asked for, in case that member does not come back (it got the
 * lock): a covered waiter's re-check is never more than one of its own periods late. Not at their
 * delays: a delay shortened by what blocked the lock when its member joined (a key about to
 * expire) is spent by that attempt, whose reply brings the member that made it back with a fresh
 * one; kept, it would have the group re-check at that pace for as long as the member stays
 * covered. A member woken otherwise (a notification, its wait's end) leaves by cancelling its turn.
 */
final class RecheckGroups {

    /** A parked waiter: what it asked for, and the future that gives it its turn. */
    private record Member(AcquireOperation operation, long periodNanos,
                          CompletableFuture<List<AcquireOperation>> turn) {
    }

    /** The members of one lock name and kind, by arrival, and the group's one timer. */
    private static final class Group {
        final TreeMap<Long, Member> parked = new TreeMap<>();
        ScheduledFuture<?> timer;
        long dueAtNanos;
        long generation;
    }

    private final RenewalScheduler scheduler;
    private final Map<WaitQueues.Key, Group> groups = new ConcurrentHashMap<>();

    RecheckGroups(RenewalScheduler scheduler) {
        this.scheduler = scheduler;
    }

    /**
     * Parks {@code operation} (which arrived {@code arrival}-th: a smaller number arrived earlier)
     * in the group of {@code key} until its turn to re-check, due within {@code delayNanos}; once
     * another member's attempt covered it, within {@code periodNanos} of that attempt.
     *
     * @return completes with the other members to cover when it is this operation's turn; cancel
     *         it to leave the group
     */
    CompletableFuture<List<AcquireOperation>> join(WaitQueues.Key key, AcquireOperation operation, long arrival,
                                                   long delayNanos, long periodNanos) {
        CompletableFuture<List<AcquireOperation>> turn = new CompletableFuture<>();
        groups.compute(key, (k, group) -> {
            Group current = group == null ? new Group() : group;
            current.parked.put(arrival, new Member(operation, periodNanos, turn));
            long due = System.nanoTime() + delayNanos;
            if (current.timer == null || due - current.dueAtNanos < 0) {
                arm(key, current, due);
            }
            return current;
        });
        turn.whenComplete((covered, error) -> {
            if (turn.isCancelled()) {
                leave(key, arrival, turn);
            }
        });
        return turn;
    }

    /** Groups with a parked member (each with one timer), for the client's counters. */
    int groups() {
        return groups.size();
    }

    private void leave(WaitQueues.Key key, long arrival, CompletableFuture<List<AcquireOperation>> turn) {
        groups.computeIfPresent(key, (k, group) -> {
            Member member = group.parked.get(arrival);
            if (member != null && member.turn() == turn) {
                group.parked.remove(arrival);
            }
            return ended(group);
        });
    }

    /** Called under the map's lock for the group's key. */
    private void arm(WaitQueues.Key key, Group group, long dueAtNanos) {
        if (group.timer != null) {
            group.timer.cancel(false);
        }
        long generation = ++group.generation;
        group.dueAtNanos = dueAtNanos;
        group.timer = scheduler.schedule(() -> fire(key, generation), dueAtNanos - System.nanoTime());
    }

    private void fire(WaitQueues.Key key, long generation) {
        Member[] first = new Member[1];
        List<AcquireOperation> others = new ArrayList<>();
        groups.computeIfPresent(key, (k, group) -> {
            if (group.generation != generation) {
                return group;
            }
            group.timer = null;
            Map.Entry<Long, Member> earliest = group.parked.pollFirstEntry();
            if (earliest == null) {
                return ended(group);
            }
            first[0] = earliest.getValue();
            long again = Long.MAX_VALUE;
            for (Member member : group.parked.values()) {
                others.add(member.operation());
                again = Math.min(again, member.periodNanos());
            }
            if (!group.parked.isEmpty()) {
                arm(key, group, System.nanoTime() + again);
            }
            return group;
        });
        // Outside the map's lock: completing the turn runs the member's attempt.
        if (first[0] != null) {
            first[0].turn().complete(others);
        }
    }

    /** The group, or null (removing it) once it has no member; its timer is cancelled then. */
    private static Group ended(Group group) {
        if (!group.parked.isEmpty()) {
            return group;
        }
        if (group.timer != null) {
            group.timer.cancel(false);
        }
        return null;
    }
}
