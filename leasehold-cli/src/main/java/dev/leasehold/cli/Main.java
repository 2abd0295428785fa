package dev.leasehold.cli;

import picocli.CommandLine;

import java.time.Duration;

/** Entry point of the {@code leasehold} command; see {@link LeaseholdCommand} for what it does. */
public final class Main {

    private Main() {
    }

    /** Runs the command line and exits with its {@link ExitCodes exit code}. */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The configured command line: typed durations, short usage errors, mapped exit codes. */
    static CommandLine commandLine() {
        ErrorHandlers errors = new ErrorHandlers();
        return new CommandLine(new LeaseholdCommand())
                .registerConverter(Duration.class, new Durations.Converter())
                .setParameterExceptionHandler(errors)
                .setExecutionExceptionHandler(errors)
                .setExitCodeExceptionMapper(error -> ExitCodes.INTERNAL);
    }
}
