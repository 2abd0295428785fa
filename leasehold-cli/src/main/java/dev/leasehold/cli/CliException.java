package dev.leasehold.cli;

/**
 * A failure the command has already put into words for the user, with the exit code it ends
 * with. {@link ErrorHandlers} prints the message (nothing else: no stack trace) and exits.
 */
final class CliException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int exitCode;

    CliException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    CliException(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    int exitCode() {
        return exitCode;
    }
}
