package concbench.spring.webflux;

import concbench.spring.ConditionalOnAggregate;
import concbench.spring.ReadyInfo;
import java.util.Map;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.reactive.ClientHttpConnector;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

/**
 * WebClient's connector for downstream=http: Reactor Netty with its own ConnectionProvider of
 * {@value #MAX_CONNECTIONS} connections and an unbounded queue of pending acquires. The default
 * provider allows 2 x max(CPUs, 8) = 16 connections here and 2 x that many pending acquires;
 * beyond those a call fails (PoolAcquirePendingLimitException), so at 150 connections (300
 * concurrent downstream calls) the defaults turn load into errors. Boot's auto-configured
 * WebClient.Builder uses this ClientHttpConnector bean. The client shares Reactor Netty's
 * default event loops with the server (Reactor Netty's and Boot's default).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnAggregate
@ConditionalOnProperty(name = "concbench.downstream", havingValue = "http")
public class WebClientConfig {
    static final int MAX_CONNECTIONS = 4096;

    @Bean(destroyMethod = "dispose")
    ConnectionProvider backendConnectionProvider() {
        return ConnectionProvider.builder("backend")
                .maxConnections(MAX_CONNECTIONS)
                .pendingAcquireMaxCount(-1)
                .build();
    }

    @Bean
    ClientHttpConnector clientHttpConnector(ConnectionProvider backendConnectionProvider) {
        return new ReactorClientHttpConnector(HttpClient.create(backendConnectionProvider));
    }

    @Bean
    ReadyInfo webClientInfo() {
        return runtime -> runtime.put("client_pool", Map.of(
                "client", "WebClient + Reactor Netty",
                "max_connections", MAX_CONNECTIONS, "pending_acquire_max", "unbounded"));
    }
}
