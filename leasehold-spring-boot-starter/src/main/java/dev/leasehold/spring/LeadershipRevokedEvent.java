package dev.leasehold.spring;

import dev.leasehold.Lease;
import dev.leasehold.Leadership;
import org.springframework.context.ApplicationEvent;

/**
 * The term announced by the last {@link LeadershipGrantedEvent} is over: its lease was lost, or the
 * application resigned or is shutting down. Published on the candidate's event thread.
 */
public class LeadershipRevokedEvent extends ApplicationEvent {

    private final transient Lease term;
    private final String reason;

    public LeadershipRevokedEvent(Leadership source, Lease term, String reason) {
        super(source);
        this.term = term;
        this.reason = reason;
    }

    /** The term that ended (no longer valid). */
    public Lease getTerm() {
        return term;
    }

    /** Why it ended, in words. */
    public String getReason() {
        return reason;
    }

    /** The candidate whose term ended. */
    public Leadership getLeadership() {
        return (Leadership) getSource();
    }
}
