package dev.leasehold.engine;

/**
 * The phases of a lease. A lease is born HELD (the engine creates it only once the backend
 * granted the lock), and transitions only move forward:
 * <pre>
 *   HELD ──▶ RELEASING ──▶ RELEASED
 *     │
 *     └──▶ LOST     (a renewal found another holder, the local deadline passed, the client closed)
 * </pre>
 * LOST and RELEASED are terminal. Nothing moves a lease back to HELD, so a renewal that
 * answers late can never revive a released or lost lease; and whoever observes a HELD lease past
 * its local deadline moves it to LOST in the same step, so a lease once seen invalid stays so.
 */
enum LeasePhase {
    HELD,
    RELEASING,
    RELEASED,
    LOST
}
