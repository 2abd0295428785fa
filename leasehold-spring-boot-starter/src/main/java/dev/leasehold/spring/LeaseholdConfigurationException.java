package dev.leasehold.spring;

/**
 * A configuration of Leasehold that cannot work, found at startup: a property or an attribute of
 * {@link Locked} that is missing, malformed or out of range, or a Redis server that cannot be
 * reached with the configured settings. The message names the setting, says what is wrong and what
 * to do; it never carries a password.
 */
public class LeaseholdConfigurationException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String setting;
    private final String problem;

    /**
     * @param setting the property ({@code leasehold.redis.uri}) or annotation attribute
     *                ({@code @Locked(waitFor) on Orders.pay(long)}) at fault
     * @param problem what is wrong and what to do
     * @param cause   the underlying error, or null
     */
    public LeaseholdConfigurationException(String setting, String problem, Throwable cause) {
        super(setting + ": " + problem, cause);
        this.setting = setting;
        this.problem = problem;
    }

    /** The property or annotation attribute at fault, as the message names it. */
    public String setting() {
        return setting;
    }

    /** What is wrong with it and what to do: the message without the setting. */
    public String problem() {
        return problem;
    }
}
