package dev.leasehold.redis;

/**
 * The Redis keys and channel of one lock. The lock key is the lock name itself, so any client
 * using the plain {@code SET name value NX PX} convention excludes and is excluded by Leasehold.
 * The auxiliary keys share the lock key's Cluster hash slot: {@code {name}:fence} when the name
 * has no hash tag, {@code name:fence} when it carries one already. Public so other Redis-based
 * backends (leasehold-redlock) use the same layout on each server.
 *
 * @param lock    the lock key, holding the holder id
 * @param fence   the last fencing token issued
 * @param waiters sorted set of registered waiters
 * @param channel pub/sub channel announcing releases
 */
public record LockKeys(String lock, String fence, String waiters, String channel) {

    /**
     * @throws IllegalArgumentException if the name contains '}' without a valid hash tag: no key
     *                                  derived from it could be placed in its Cluster slot
     */
    public static LockKeys of(String name) {
        String prefix;
        if (hasHashTag(name)) {
            prefix = name;
        } else if (name.indexOf('}') >= 0) {
            throw new IllegalArgumentException("lock name '" + name + "' contains '}' without a non-empty "
                    + "{hash tag}, so its auxiliary keys could not share its Redis Cluster slot; "
                    + "remove the '}' or put the part to hash in braces, e.g. '{order:123}'");
        } else {
            prefix = "{" + name + "}";
        }
        return new LockKeys(name, prefix + ":fence", prefix + ":waiters", prefix + ":released");
    }

    /** Redis Cluster's rule: the first '{' followed later by a '}' with something in between. */
    static boolean hasHashTag(String key) {
        int open = key.indexOf('{');
        if (open < 0) {
            return false;
        }
        int close = key.indexOf('}', open + 1);
        return close > open + 1;
    }

    String[] forAcquire() {
        return new String[] {lock, fence, waiters};
    }

    String[] forRelease() {
        return new String[] {lock, waiters};
    }

    String[] forRenew() {
        return new String[] {lock};
    }
}
