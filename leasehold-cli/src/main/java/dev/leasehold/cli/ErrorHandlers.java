package dev.leasehold.cli;

import dev.leasehold.LeaseLostException;
import dev.leasehold.LockUnavailableException;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * Turns every failure into one short message on stderr and an {@link ExitCodes exit code}:
 * usage errors name the problem and point at {@code --help} instead of dumping the whole help,
 * backend outages say which server (never with its credentials) and what to check.
 */
final class ErrorHandlers implements IParameterExceptionHandler, IExecutionExceptionHandler {

    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        PrintWriter err = cmd.getErr();
        err.println(prefix(cmd) + Redaction.credentialsRemoved(ex.getMessage()));
        UnmatchedArgumentException.printSuggestions(ex, err);
        err.println("Usage: " + cmd.getHelp().synopsis(0).strip());
        err.println("Run '" + cmd.getCommandSpec().qualifiedName() + " --help' for the options.");
        err.flush();
        return ExitCodes.USAGE;
    }

    @Override
    public int handleExecutionException(Exception ex, CommandLine cmd, ParseResult parseResult) {
        int code;
        String message;
        if (ex instanceof CliException cli) {
            code = cli.exitCode();
            message = cli.getMessage();
        } else if (ex instanceof LockUnavailableException) {
            code = ExitCodes.UNAVAILABLE;
            message = ex.getMessage();
        } else if (ex instanceof LeaseLostException) {
            code = ExitCodes.LEASE_LOST;
            message = ex.getMessage();
        } else {
            code = ExitCodes.INTERNAL;
            StringWriter trace = new StringWriter();
            ex.printStackTrace(new PrintWriter(trace));
            message = "internal error, please report it with this trace:\n" + trace;
        }
        PrintWriter err = cmd.getErr();
        err.println(prefix(cmd) + Redaction.credentialsRemoved(message));
        err.flush();
        return code;
    }

    private static String prefix(CommandLine cmd) {
        return cmd.getCommandSpec().qualifiedName() + ": ";
    }
}
