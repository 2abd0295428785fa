package dev.leasehold.testkit.history;

/**
 * One write a holder attempted on the shared resource, recorded inside the resource's atomic
 * section so that the order of admitted writes in the history is the order the resource saw.
 *
 * @param holder   who wrote
 * @param token    the token the write carried
 * @param admitted whether the resource (its guard) accepted it
 * @param before   the resource's value the writer had read under its lock
 * @param after    the value it wrote (for admitted writes)
 */
public record Write(String holder, long token, boolean admitted, long before, long after) {
}
