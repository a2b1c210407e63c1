package concbench.spring.mvc;

import concbench.spring.ConditionalOnAggregate;
import concbench.spring.ReadyInfo;
import java.util.Map;
import java.util.concurrent.ThreadPoolExecutor;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

/**
 * Seed 003's "highPerformanceExecutor", its three sizes coming from the profiles
 * application-async-small / -tuned / -large.properties (concbench.async.*).
 */
@Configuration(proxyBeanMethods = false)
@Profile("async")
@ConditionalOnAggregate
@EnableConfigurationProperties(AsyncExecutorConfig.AsyncPool.class)
public class AsyncExecutorConfig {

    @ConfigurationProperties("concbench.async")
    public record AsyncPool(int corePoolSize, int maxPoolSize, int queueCapacity, int keepAliveSeconds) {
    }

    @Bean("highPerformanceExecutor")
    public ThreadPoolTaskExecutor highPerformanceExecutor(AsyncPool pool) {
        ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
        executor.setCorePoolSize(pool.corePoolSize());
        executor.setMaxPoolSize(pool.maxPoolSize());
        executor.setQueueCapacity(pool.queueCapacity());
        executor.setKeepAliveSeconds(pool.keepAliveSeconds());
        executor.setThreadNamePrefix("HighPerf-");
        executor.setRejectedExecutionHandler(new ThreadPoolExecutor.CallerRunsPolicy());
        return executor; // initialize() is called by the container (InitializingBean)
    }

    @Bean
    ReadyInfo asyncPoolInfo(ThreadPoolTaskExecutor highPerformanceExecutor) {
        return runtime -> {
            ThreadPoolExecutor tpe = highPerformanceExecutor.getThreadPoolExecutor();
            runtime.put("async_pool", Map.of(
                    "core", tpe.getCorePoolSize(),
                    "max", tpe.getMaximumPoolSize(),
                    "queue", highPerformanceExecutor.getQueueCapacity(),
                    "keep_alive_s", highPerformanceExecutor.getKeepAliveSeconds(),
                    "rejected", tpe.getRejectedExecutionHandler().getClass().getSimpleName()));
        };
    }
}
