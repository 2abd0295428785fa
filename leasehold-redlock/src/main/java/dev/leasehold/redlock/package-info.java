/**
 * Redlock across N independent Redis masters, with fencing tokens: {@link dev.leasehold.redlock.RedlockLocks}
 * and {@link dev.leasehold.redlock.RedlockLockClient}, the same {@link dev.leasehold.LockClient} API
 * as every other backend.
 *
 * <h2>The algorithm</h2>
 * Acquire on all N nodes in parallel, each call bounded by a per-node timeout small against the ttl
 * (default 5 %). Success needs N/2+1 grants and a positive validity, {@code ttl - elapsed - drift}
 * with {@code drift = ttl * 0.01 + 2 ms}, the clock started with {@link java.lang.System#nanoTime()}
 * before the first send; otherwise the attempt releases on every node, including those that did
 * not answer, and retries after a random delay. Renewal extends on every node where the key is
 * still ours and keeps the lease only while a majority extended. Release deletes on every node.
 * Each node stores the lock under the lock name itself, like {@code leasehold-redis}, so a
 * single-node client and this one exclude each other on a shared server.
 *
 * <h2>Fencing tokens</h2>
 * Each node advances its own counter in its acquire script, to {@code max(counter + 1, node time
 * in µs)}, and returns it. The client takes the maximum M over the nodes that granted and writes
 * {@code counter = max(counter, M)} back to them, in parallel, before it returns the lease; the
 * lease needs that write acknowledged by a majority and its validity still positive after it. Any
 * later majority shares a node with that one, so the next token exceeds M.
 *
 * <h2>The assumption: no node loses an acknowledged write</h2>
 * Both mutual exclusion and token order rest on it. A node that restarts empty (no persistence, or
 * {@code appendfsync everysec} losing its last second) forgets the keys and counters it
 * acknowledged: a second client can then gather a majority while the first still holds the lock,
 * and get a token that is not higher. Meet the assumption in one of two ways:
 * <ol>
 *   <li>run every node with {@code appendonly yes} and {@code appendfsync always}, so every
 *   acknowledged write is on disk before the reply; or</li>
 *   <li>keep a node that crashed down for longer than the longest ttl in use before it rejoins,
 *   so every lease it took part in has expired everywhere. Its counter then starts again from its
 *   clock, so token order across such a restart also needs node clocks to agree within that
 *   delay.</li>
 * </ol>
 * The module's tests reproduce the failure when neither holds, and show that each cure works.
 *
 * <p>Further assumptions: clocks of clients and nodes run at nearly the same rate (within the
 * drift); node clocks neither differ nor step back by more than the fence retention (a counter
 * that expired restarts from its node's clock); and the nodes are independent masters, not
 * replicas of each other.
 */
package dev.leasehold.redlock;
