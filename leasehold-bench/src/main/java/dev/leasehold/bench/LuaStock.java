package dev.leasehold.bench;

import dev.leasehold.redis.internal.RedisScript;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;

import java.util.concurrent.TimeUnit;

/** (b) No lock: the stock in Redis, sold by one Lua script that checks and decrements atomically. */
final class LuaStock implements StockStrategy {

    private static final RedisScript DECREMENT = RedisScript.load("/dev/leasehold/bench/stock_decrement.lua");
    private static final String KEY = "bench:stock:units";

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

    LuaStock(String uri) {
        this.client = RedisClient.create(uri);
        this.connection = client.connect();
    }

    @Override
    public String name() {
        return "Redis Lua check-and-decrement";
    }

    @Override
    public void reset(long units) {
        connection.sync().set(KEY, Long.toString(units));
    }

    @Override
    public boolean sell() throws Exception {
        Long sold = DECREMENT.<Long>run(connection.async(), ScriptOutputType.INTEGER, new String[] {KEY})
                .get(10, TimeUnit.SECONDS);
        return sold == 1L;
    }

    @Override
    public long left() {
        return Long.parseLong(connection.sync().get(KEY));
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
