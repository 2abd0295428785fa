/**
 * The engine shared by every backend. Backends use two public classes:
 * {@link dev.leasehold.engine.LeaseEngine}, which turns a {@link dev.leasehold.spi.LockProtocol}
 * into locks, and {@link dev.leasehold.engine.HolderIds}, to redact holder ids in their logs.
 * Everything else is package-private: waiting ({@code AcquireOperation}, {@code WaitQueues},
 * {@code WaitPolicy}), the lease state machine ({@code LeaseLifecycle}, {@code LeasePhase}),
 * renewal and deadline checks ({@code Renewal} on one {@code RenewalScheduler} per client), and
 * release ({@code ManagedLease}).
 */
package dev.leasehold.engine;
