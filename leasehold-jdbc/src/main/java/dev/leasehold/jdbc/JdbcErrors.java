package dev.leasehold.jdbc;

import dev.leasehold.LeaseholdException;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.NodeFailure;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.CompletionException;

/** Turns the driver's and the pool's errors into typed Leasehold errors that say what to do. */
final class JdbcErrors {

    private JdbcErrors() {
    }

    /** The error of {@code operation} against {@code database}; Leasehold's own exceptions pass through. */
    static LeaseholdException translate(String database, String operation, Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof LeaseholdException leasehold) {
            return leasehold;
        }
        String state = cause instanceof SQLException sql && sql.getSQLState() != null ? sql.getSQLState() : "";
        NodeFailure.Kind kind;
        String advice;
        if (state.equals("28P01") || state.equals("28000")) {
            kind = NodeFailure.Kind.AUTHENTICATION;
            advice = "the database rejected the credentials; check the user name and password of the DataSource";
        } else if (state.startsWith("08") || state.equals("57P01") || state.equals("57P03")) {
            kind = NodeFailure.Kind.REFUSED;
            advice = "cannot connect, or the connection was closed (" + firstLine(cause)
                    + "); check that the database is running and the URL is right";
        } else if (cause instanceof SQLTransientConnectionException || state.equals("57014")) {
            kind = NodeFailure.Kind.TIMED_OUT;
            advice = "no connection or answer in time (" + firstLine(cause) + "); the database or the pool may be exhausted or paused";
        } else if (state.equals("55P03")) {
            kind = NodeFailure.Kind.TIMED_OUT;
            advice = "another session held this name's advisory lock past lock_timeout (" + firstLine(cause)
                    + "): most likely another client is stuck in the middle of its acquire (frozen, or cut off from "
                    + "the database); the database ends its transaction after idle_in_transaction_session_timeout "
                    + "(a third of the operation timeout), so a retry then goes through";
        } else if (state.equals("25006")) {
            kind = NodeFailure.Kind.ERROR;
            advice = "the database is read-only (" + firstLine(cause) + "); locks need a writable primary";
        } else {
            kind = NodeFailure.Kind.ERROR;
            advice = firstLine(cause);
        }
        return new LockUnavailableException("PostgreSQL at " + database + ": " + operation + " failed: " + advice,
                new NodeFailure(database, kind, cause));
    }

    private static String firstLine(Throwable error) {
        String message = String.valueOf(error.getMessage());
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
