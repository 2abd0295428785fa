/**
 * ShedLock on Leasehold: {@link dev.leasehold.shedlock.LeaseholdLockProvider}, a ShedLock
 * {@code ExtensibleLockProvider} over any {@link dev.leasehold.LockClient}, so scheduled jobs locked
 * with ShedLock get fencing tokens and loss detection by changing one bean.
 */
package dev.leasehold.shedlock;
