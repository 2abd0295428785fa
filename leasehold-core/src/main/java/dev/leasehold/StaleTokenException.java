package dev.leasehold;

/**
 * A {@link FenceGuard} refused a write because its fencing token is lower than one it
 * has already admitted for the same resource: the writer's lease was lost and another
 * holder has written since. The write did not happen.
 */
public class StaleTokenException extends LeaseholdException {

    private final String resource;
    private final long token;
    private final long highestAdmitted;

    public StaleTokenException(String resource, long token, long highestAdmitted) {
        super("Write to '" + resource + "' with fencing token " + token
                + " refused: token " + highestAdmitted + " was already admitted (the writer's lease was lost)");
        this.resource = resource;
        this.token = token;
        this.highestAdmitted = highestAdmitted;
    }

    public String resource() {
        return resource;
    }

    public long token() {
        return token;
    }

    public long highestAdmitted() {
        return highestAdmitted;
    }
}
