package dev.leasehold;

/**
 * A call on a {@link LockClient} (or on a lock, semaphore or lease of it) that needs the backend,
 * made after the client was closed. The one exception type every such call throws, whatever the
 * backend's I/O layer would have said. {@link Lease#release()} of a lease the close ended does not
 * throw it: it returns {@link ReleaseStatus#ALREADY_LOST}.
 */
public class LockClientClosedException extends LeaseholdException {

    public LockClientClosedException(String client) {
        super("The lock client for " + client + " is closed; create a new one");
    }
}
