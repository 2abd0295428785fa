package dev.leasehold.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.LockClient;
import dev.leasehold.launcher.PostgresServer;
import dev.leasehold.testkit.contract.LeadershipContract;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.AfterAll;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The leader-election contract on PostgreSQL, through HikariCP pools on a real server. */
@Tag("faults")
class JdbcLeadershipContractTest extends LeadershipContract {

    private static final List<HikariDataSource> PROXIED_POOLS = new ArrayList<>();

    @AfterAll
    static void closePools() {
        PROXIED_POOLS.forEach(HikariDataSource::close);
        PROXIED_POOLS.clear();
    }

    @Override
    protected LockClient connect() {
        return JdbcLocks.create(SharedDatabase.pool());
    }

    @Override
    protected List<InetSocketAddress> servers() {
        return List.of(new InetSocketAddress(SharedDatabase.server().host(), SharedDatabase.server().port()));
    }

    @Override
    protected LockClient connectVia(List<InetSocketAddress> addresses) {
        InetSocketAddress via = addresses.get(0);
        PostgresServer server = SharedDatabase.server();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(server.jdbcUrl().replace(server.host() + ":" + server.port(),
                via.getHostString() + ":" + via.getPort()));
        config.setUsername(server.user());
        config.setPassword(server.password());
        config.setMaximumPoolSize(4);
        config.setConnectionTimeout(2_000);
        config.addDataSourceProperty("socketTimeout", "2");
        HikariDataSource pool = new HikariDataSource(config);
        PROXIED_POOLS.add(pool);
        return JdbcLocks.builder(pool).operationTimeout(Duration.ofMillis(500)).build();
    }
}
