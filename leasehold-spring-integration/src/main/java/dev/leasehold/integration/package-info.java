/**
 * Spring Integration on Leasehold: {@link dev.leasehold.integration.LeaseholdLockRegistry}, a
 * {@code LockRegistry} (expirable and renewable) over any {@link dev.leasehold.LockClient}, so
 * {@code LockRegistryLeaderInitiator}, aggregators and every component that takes a registry hold
 * Leasehold leases, with their fencing tokens and loss detection.
 */
package dev.leasehold.integration;
