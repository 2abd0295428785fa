/**
 * The engine shared by every backend: waiting ({@code AcquireOperation}, {@code WaitQueues},
 * {@code WaitPolicy}), the lease state machine ({@code LeaseLifecycle}), renewal and deadline
 * checks ({@code Renewal} on one {@link dev.leasehold.engine.RenewalScheduler} per client), and
 * release ({@code ManagedLease}). Backends use {@link dev.leasehold.engine.LeaseEngine}; the rest
 * is package-private.
 */
package dev.leasehold.engine;
