package dev.leasehold.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.launcher.PostgresServer;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.RedisLocks;
import org.HdrHistogram.Histogram;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The seeds' question, measured: when is a lock the wrong tool? Sells one unit of stock per call
 * under contention (8 and 32 threads), four ways, against one real PostgreSQL and one
 * redis-server: (a) a Leasehold lock around a guarded read-modify-write, (b) a Redis Lua
 * check-and-decrement, (c) an optimistic version column with retry, (d) {@code SELECT ... FOR UPDATE}.
 * Reports throughput, p99 latency of a sale (retries included), and correctness: a timed run must
 * account for every unit, and a sell-out run (fewer units than sale attempts) must sell exactly
 * the stock, never more.
 *
 * <pre>
 * java -cp leasehold-bench/target/benchmarks.jar dev.leasehold.bench.StockBench [--smoke] [--out FILE]
 * </pre>
 */
public final class StockBench {

    /** One strategy at one thread count. */
    record Row(String strategy, int threads, double salesPerSecond, double p99Millis, long retries,
               boolean accounted, long sellOutStock, long sellOutSold, long sellOutLeft) {

        /** No unit lost or invented in the timed run, and exactly the stock sold in the sell-out run. */
        boolean correct() {
            return accounted && sellOutSold == sellOutStock && sellOutLeft == 0;
        }
    }

    /** How long each cell runs. */
    record Settings(Duration warmUp, Duration measure, long sellOutStock, List<Integer> threads) {
        static Settings full() {
            return new Settings(Duration.ofSeconds(2), Duration.ofSeconds(8), 2_000, List.of(8, 32));
        }

        static Settings smoke() {
            return new Settings(Duration.ofMillis(100), Duration.ofMillis(400), 100, List.of(8, 32));
        }
    }

    private interface StrategyFactory {
        StockStrategy create() throws Exception;
    }

    private StockBench() {
    }

    public static void main(String[] args) throws Exception {
        BenchArgs parsed = BenchArgs.parse(args, "StockBench", Path.of("leasehold-bench", "STOCK.md"));
        Settings settings = parsed.smoke() ? Settings.smoke() : Settings.full();
        parsed.publish(markdown(run(settings), settings));
    }

    /** Starts the servers, runs every strategy at every thread count, stops the servers. */
    static List<Row> run(Settings settings) throws Exception {
        try (RedisServer redis = RedisServer.builder().start();
             PostgresServer postgres = PostgresServer.start();
             HikariDataSource pool = PostgresPool.open(postgres, 40, 40)) {
            List<StrategyFactory> strategies = List.of(
                    () -> new LockedStock(RedisLocks.connect(redis.uri()), pool),
                    () -> new LuaStock(redis.uri()),
                    () -> new OptimisticStock(pool),
                    () -> new ForUpdateStock(pool));
            List<Row> rows = new ArrayList<>();
            for (int threads : settings.threads()) {
                for (StrategyFactory factory : strategies) {
                    try (StockStrategy strategy = factory.create()) {
                        rows.add(measure(strategy, threads, settings));
                    }
                }
            }
            return rows;
        }
    }

    private static Row measure(StockStrategy strategy, int threads, Settings settings) throws Exception {
        long plenty = 1_000_000_000L;
        strategy.reset(plenty);
        drive(strategy, threads, settings.warmUp(), null, null);
        strategy.reset(plenty);
        Histogram latency = new Histogram(3);
        AtomicLong sold = new AtomicLong();
        long start = System.nanoTime();
        drive(strategy, threads, settings.measure(), latency, sold);
        double seconds = (System.nanoTime() - start) / 1e9;
        long retries = strategy.retries();
        boolean accounted = plenty - strategy.left() == sold.get();

        strategy.reset(settings.sellOutStock());
        AtomicLong sellOut = new AtomicLong();
        drive(strategy, threads, null, null, sellOut);
        return new Row(strategy.name(), threads, sold.get() / seconds, latency.getValueAtPercentile(99) / 1e6,
                retries, accounted, settings.sellOutStock(), sellOut.get(), strategy.left());
    }

    /**
     * Runs {@code threads} sellers for {@code duration}, or, when it is null, until every seller has
     * seen the stock sold out. Records each sale's latency and counts the sales.
     */
    private static void drive(StockStrategy strategy, int threads, Duration duration, Histogram latency,
                              AtomicLong sold) throws Exception {
        long end = duration == null ? Long.MAX_VALUE : System.nanoTime() + duration.toNanos();
        CountDownLatch done = new CountDownLatch(threads);
        AtomicReference<Exception> failure = new AtomicReference<>();
        List<Thread> sellers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread seller = new Thread(() -> {
                try {
                    while (System.nanoTime() < end) {
                        long began = System.nanoTime();
                        if (!strategy.sell()) {
                            break;
                        }
                        if (latency != null) {
                            synchronized (latency) {
                                latency.recordValue(System.nanoTime() - began);
                            }
                        }
                        if (sold != null) {
                            sold.incrementAndGet();
                        }
                    }
                } catch (Exception e) {
                    failure.compareAndSet(null, e);
                } finally {
                    done.countDown();
                }
            }, "stock-seller-" + i);
            sellers.add(seller);
            seller.start();
        }
        done.await();
        if (failure.get() != null) {
            throw new IllegalStateException(strategy.name() + " failed", failure.get());
        }
    }

    static String markdown(List<Row> rows, Settings settings) {
        StringBuilder text = new StringBuilder();
        text.append("# Stock decrement under contention\n\n")
                .append("One row (PostgreSQL) or one key (Redis), one unit sold per call; ")
                .append(settings.measure().toMillis()).append(" ms measured after ")
                .append(settings.warmUp().toMillis()).append(" ms of warm-up per cell; sell-out run: ")
                .append(settings.sellOutStock()).append(" units, every thread selling until none is left. ")
                .append(MachineLoad.now()).append(" at the end.\n\n")
                .append("| strategy | threads | sales/s | p99 of a sale | retries | no oversell |\n")
                .append("| --- | --- | --- | --- | --- | --- |\n");
        for (Row row : rows) {
            text.append("| ").append(row.strategy()).append(" | ").append(row.threads())
                    .append(" | ").append(String.format("%,.0f", row.salesPerSecond()))
                    .append(" | ").append(String.format("%.2f ms", row.p99Millis()))
                    .append(" | ").append(String.format("%,d", row.retries()))
                    .append(" | ").append(row.correct() ? "yes" : "NO (" + row + ")")
                    .append(" |\n");
        }
        return text.toString();
    }
}
