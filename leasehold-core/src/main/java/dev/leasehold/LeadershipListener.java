package dev.leasehold;

/**
 * What a candidate hears from its {@link Leadership}. Both methods run on the candidate's own event
 * thread ({@code leasehold-leader-<name>-events}), one at a time and in order, never on a client I/O
 * thread and never under a lock, so they may block: {@link #onElected} may run the leader's whole
 * work (preferably inside {@link Lease#call term.call(...)}, which is interrupted when the term
 * ends), and {@link #onRevoked} then follows once it returned. An exception thrown here is logged
 * and changes nothing.
 */
public interface LeadershipListener {

    /**
     * This candidate leads from now on, for the term {@code term}: a lease on the election's lock
     * whose {@link Lease#token()} exceeds every earlier term's. Pass the token with every write the
     * leader makes. {@link Lease#lost()} completes when the term ends, whatever the reason.
     */
    void onElected(Lease term);

    /**
     * The term announced by the last {@link #onElected} is over: the lease was lost (a renewal found
     * another holder, or the local deadline passed without one), the candidate resigned or was
     * closed, or the client was closed. {@code reason} says which, in words.
     */
    void onRevoked(String reason);
}
