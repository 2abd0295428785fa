/**
 * What a backend implements: a {@link dev.leasehold.spi.LockProtocol} per lock kind (a few
 * asynchronous server calls) and, optionally, {@link dev.leasehold.spi.ReleaseSignal}s. The
 * {@link dev.leasehold.engine.LeaseEngine} turns it into the full API.
 */
package dev.leasehold.spi;
