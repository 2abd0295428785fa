package dev.leasehold.cli;

/**
 * The exit codes of {@code leasehold}. When {@code run} starts its command, the command's own
 * exit code is passed through (128 + N when a signal N ended it, as a shell reports it), so
 * these codes are picked from the {@code sysexits.h} range, which ordinary programs rarely
 * use, and scripts can tell "the job failed" from "the job never ran".
 */
public final class ExitCodes {

    /** Everything went as asked (and for {@code run}: the command exited 0). */
    public static final int OK = 0;
    /** The command line is wrong: unknown option, bad duration, missing command ({@code EX_USAGE}). */
    public static final int USAGE = 64;
    /**
     * The lock backend could not be reached or refused the credentials ({@code EX_UNAVAILABLE});
     * for {@code demo --failover}: its servers did not start or did not fail over as the story needs.
     */
    public static final int UNAVAILABLE = 69;
    /** An unexpected internal error; a bug worth reporting ({@code EX_SOFTWARE}). */
    public static final int INTERNAL = 70;
    /** {@code run}: the lock was not obtained within {@code --wait}; the command did not run ({@code EX_TEMPFAIL}). */
    public static final int NOT_OBTAINED = 75;
    /** {@code run}: the lease was lost while the command ran; the command's process group was terminated. */
    public static final int LEASE_LOST = 79;
    /** {@code break}: the lock was free; nothing was broken ({@code EX_NOINPUT}: nothing by that name to act on). */
    public static final int NOT_HELD = 66;
    /** {@code break}: asked on a terminal, the user did not confirm; nothing was broken. */
    public static final int NOT_CONFIRMED = 1;
    /**
     * {@code run}: the command could not be started, as a shell reports it. A command that is
     * not found gives 127 and one that is not executable 126, both from {@code setsid}, which
     * starts it; 126 also when {@code setsid} itself cannot be started.
     */
    public static final int CANNOT_EXECUTE = 126;

    private ExitCodes() {
    }
}
