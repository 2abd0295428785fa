package dev.leasehold;

/**
 * A semaphore was used with another number of permits than the leases that hold it right now:
 * every client must give a semaphore name the same number while any permit of it is held, since
 * the backend cannot honour two limits at once. Nothing was taken.
 *
 * <p>Thrown by an acquire (the backend checks the number atomically with every grant) and by
 * {@link DistributedSemaphore#available()}; {@link LockClient#semaphore(String, int, LockOptions)}
 * reports the same conflict, when it already exists at creation, as an
 * {@link IllegalArgumentException} with this message.
 */
public class PermitsMismatchException extends LeaseholdException {

    private final String semaphoreName;
    private final int heldWith;
    private final int requested;

    public PermitsMismatchException(String semaphoreName, int heldWith, int requested) {
        super(message(semaphoreName, heldWith, requested));
        this.semaphoreName = semaphoreName;
        this.heldWith = heldWith;
        this.requested = requested;
    }

    /** The text of this exception, also used for the same conflict found at creation. */
    public static String message(String semaphoreName, int heldWith, int requested) {
        return "Semaphore '" + semaphoreName + "' is held with " + heldWith + " permits, but this semaphore asks for "
                + requested + ": every client must use the same number of permits while any permit is held "
                + "(the number can change once no permit is held)";
    }

    public String semaphoreName() {
        return semaphoreName;
    }

    /** The number of permits the live leases were granted under. */
    public int heldWith() {
        return heldWith;
    }

    /** The number of permits of the semaphore that was refused. */
    public int requested() {
        return requested;
    }
}
