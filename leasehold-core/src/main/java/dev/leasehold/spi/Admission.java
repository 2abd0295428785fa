package dev.leasehold.spi;

/**
 * How the engine admits one client's concurrent acquisitions of the same lock (same kind, same
 * name) to the backend: the local half of a lock kind's rule.
 */
public enum Admission {

    /**
     * One acquisition at a time talks to the backend and holds; the client's others wait in a
     * local FIFO queue and take their turn when its lease ends. For kinds that admit one holder
     * (mutex, write lock): the client sends one attempt per handoff instead of a herd, and a
     * handoff between its own threads needs no notification.
     */
    EXCLUSIVE,

    /**
     * Every acquisition talks to the backend at once, which alone decides. For kinds that admit
     * many holders (read lock, semaphore permits), and for the fair lock, whose order is the
     * server's arrival order across every client's acquisitions.
     */
    SHARED
}
