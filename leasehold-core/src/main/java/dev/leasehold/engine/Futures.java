package dev.leasehold.engine;

import dev.leasehold.LeaseholdException;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.NodeFailure;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/** Turns asynchronous results into the typed exceptions of the API; {@link #unwrap} serves backends too. */
public final class Futures {

    private Futures() {
    }

    /**
     * The innermost meaningful cause of a completion failure: {@code error} without the
     * {@link CompletionException}s and {@link ExecutionException}s wrapped around it.
     */
    public static Throwable unwrap(Throwable error) {
        Throwable current = error;
        while ((current instanceof CompletionException || current instanceof ExecutionException)
                && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }

    /**
     * Maps a failed backend call to the API's exceptions: Leasehold's own exceptions pass through,
     * a timeout becomes {@link LockUnavailableException} with a TIMED_OUT failure, anything else
     * an ERROR failure naming {@code node}.
     */
    static LeaseholdException translate(Throwable error, String node, String operation) {
        Throwable cause = unwrap(error);
        if (cause instanceof LeaseholdException leasehold) {
            return leasehold;
        }
        if (cause instanceof TimeoutException) {
            return new LockUnavailableException(node + " did not answer " + operation + " in time; "
                    + "check that the server is running and reachable",
                    new NodeFailure(node, NodeFailure.Kind.TIMED_OUT, cause));
        }
        return new LockUnavailableException(operation + " failed at " + node + ": " + cause,
                new NodeFailure(node, NodeFailure.Kind.ERROR, cause));
    }

    /**
     * Waits for {@code future} without reacting to interrupts (the operation is short and bounded
     * by its own timeout), restoring the interrupt flag afterwards, and rethrows its failure typed.
     */
    static <T> T awaitUninterruptibly(CompletableFuture<T> future, String node, String operation) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException | CancellationException e) {
                    throw translate(e, node, operation);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
