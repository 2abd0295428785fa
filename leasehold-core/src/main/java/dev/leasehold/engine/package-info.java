/**
 * The engine shared by every backend. Backends mainly use three public classes:
 * {@link dev.leasehold.engine.LeaseEngine}, which turns a {@link dev.leasehold.spi.LockProtocol}
 * into locks, {@link dev.leasehold.engine.ReadWriteLockPair}, which pairs a read and a write
 * protocol into a read-write lock, and {@link dev.leasehold.engine.HolderIds}, to redact holder
 * ids in their logs; {@link dev.leasehold.engine.Coalescer} sends the writes that a client's
 * threads make at once as one call (a backend's group commit). The engine reports its events for meters to a
 * {@link dev.leasehold.engine.LeaseEvents} (with {@link dev.leasehold.engine.AcquireOutcome} and
 * {@link dev.leasehold.engine.LossReason}), given in its {@link dev.leasehold.engine.LeaseEngine.Settings},
 * and for traces to the {@link dev.leasehold.engine.AcquisitionTrace} it returns for each acquisition.
 * Everything else is package-private: waiting ({@code AcquireOperation}, {@code WaitQueues},
 * {@code WaitPolicy}, {@code RecheckGroups}), the lease state machine ({@code LeaseLifecycle}, {@code LeasePhase}),
 * renewal and deadline checks ({@code Renewal} on one {@code RenewalScheduler} per client), and
 * release ({@code ManagedLease}).
 */
package dev.leasehold.engine;
