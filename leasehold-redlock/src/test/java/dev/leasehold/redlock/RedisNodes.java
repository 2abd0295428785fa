package dev.leasehold.redlock;

import dev.leasehold.launcher.RedisServer;
import dev.leasehold.launcher.RedisServerBuilder;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/** N real redis-server processes for one test class, and what tests read off them. */
final class RedisNodes implements AutoCloseable {

    private final List<RedisServer> servers;

    private RedisNodes(List<RedisServer> servers) {
        this.servers = servers;
    }

    static RedisNodes start(int count) {
        return start(count, UnaryOperator.identity());
    }

    static RedisNodes start(int count, UnaryOperator<RedisServerBuilder> config) {
        List<RedisServer> servers = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                servers.add(config.apply(RedisServer.builder()).start());
            }
        } catch (RuntimeException e) {
            servers.forEach(RedisServer::close);
            throw e;
        }
        return new RedisNodes(servers);
    }

    RedisServer get(int index) {
        return servers.get(index);
    }

    String[] uris() {
        return servers.stream().map(RedisServer::uri).toArray(String[]::new);
    }

    /** Brings every node back (resumed, restarted if killed) and empties it. */
    void heal() {
        for (RedisServer server : servers) {
            if (!server.isAlive()) {
                server.restart();
            } else if (server.isPaused()) {
                server.resume();
            }
            server.command("FLUSHALL");
        }
    }

    void pauseAll() {
        servers.forEach(RedisServer::pause);
    }

    void resumeAll() {
        servers.forEach(RedisServer::resume);
    }

    /** How many running (alive, not paused) nodes hold the key {@code name} right now. */
    long holding(String name) {
        return servers.stream().filter(server -> server.isAlive() && !server.isPaused())
                .filter(server -> (Long) server.command("EXISTS", name) == 1L).count();
    }

    /** The fencing counter node {@code index} stores for lock {@code name}, or 0 if none. */
    long fence(int index, String name) {
        Object value = servers.get(index).command("GET", "{" + name + "}:fence");
        return value == null ? 0 : Long.parseLong((String) value);
    }

    @Override
    public void close() {
        servers.forEach(RedisServer::close);
    }
}
