package dev.leasehold.redis;

import dev.leasehold.launcher.RedisServer;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/** What tests read off a server and off this JVM to prove nothing leaks. */
final class ServerProbe {

    private ServerProbe() {
    }

    /** How many times the server ran {@code command} (from INFO commandstats), scripts' inner calls included. */
    static long calls(RedisServer server, String command) {
        String info = (String) server.command("INFO", "commandstats");
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("cmdstat_" + command + ":")) {
                String calls = line.substring(line.indexOf("calls=") + 6);
                return Long.parseLong(calls.substring(0, calls.indexOf(',')));
            }
        }
        return 0;
    }

    /** Every key on the server. */
    static List<String> keys(RedisServer server) {
        List<String> keys = new ArrayList<>();
        for (Object key : (List<?>) server.command("KEYS", "*")) {
            keys.add((String) key);
        }
        return keys;
    }

    /** Keys that would live forever: no TTL. */
    static List<String> keysWithoutTtl(RedisServer server) {
        return keys(server).stream()
                .filter(key -> (Long) server.command("PTTL", key) == -1L)
                .collect(Collectors.toList());
    }

    static long subscribers(RedisServer server, String channel) {
        List<?> reply = (List<?>) server.command("PUBSUB", "NUMSUB", channel);
        return (Long) reply.get(1);
    }

    /** Waits up to 5 s until {@code count} waiters are registered in the waiters key. */
    static void awaitWaiters(RedisServer server, String waitersKey, long count) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while ((Long) server.command("ZCARD", waitersKey) != count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("expected " + count + " waiters in " + waitersKey);
            }
            Thread.sleep(10);
        }
    }

    static long connectedClients(RedisServer server) {
        String info = (String) server.command("INFO", "clients");
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("connected_clients:")) {
                return Long.parseLong(line.substring("connected_clients:".length()).trim());
            }
        }
        throw new IllegalStateException("no connected_clients in INFO");
    }

    /** Live threads started by Lettuce/Netty or by Leasehold. */
    static Set<String> clientThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .filter(name -> name.startsWith("lettuce-") || name.startsWith("leasehold-renewal-"))
                .collect(Collectors.toSet());
    }

    /** Waits up to 5 s for the client threads to be gone (Netty ends its loops asynchronously). */
    static Set<String> clientThreadsAfterShutdown() throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        Set<String> threads = clientThreads();
        while (!threads.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
            threads = clientThreads();
        }
        return threads;
    }
}
