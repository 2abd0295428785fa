package dev.leasehold.spring;

import dev.leasehold.Lease;
import dev.leasehold.Leadership;
import org.springframework.context.ApplicationEvent;

/**
 * This application was elected leader of {@code leasehold.leadership.name}: published on the
 * candidate's event thread, so a listener may run the leader's work there, preferably inside
 * {@code getTerm().call(...)}, which is interrupted when the term ends.
 */
public class LeadershipGrantedEvent extends ApplicationEvent {

    private final transient Lease term;

    public LeadershipGrantedEvent(Leadership source, Lease term) {
        super(source);
        this.term = term;
    }

    /** The term: a lease whose token exceeds every earlier term's; pass it with every write the leader makes. */
    public Lease getTerm() {
        return term;
    }

    /** The candidate that was elected. */
    public Leadership getLeadership() {
        return (Leadership) getSource();
    }
}
