package dev.leasehold.engine;

/**
 * The phases of a lease. Transitions only move forward:
 * <pre>
 *   ACQUIRING ──▶ HELD ──▶ RELEASING ──▶ RELEASED
 *       │           │                      ▲
 *       │           └──▶ LOST              │
 *       └──────────────────────────────────┘  (abandoned before activation)
 * </pre>
 * LOST and RELEASED are terminal. Nothing moves a lease back to HELD, so a renewal that
 * answers late can never revive a released or lost lease.
 */
public enum LeasePhase {
    ACQUIRING,
    HELD,
    RELEASING,
    RELEASED,
    LOST
}
