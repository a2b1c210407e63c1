package concbench.spring.mvc;

import concbench.spring.ConditionalOnAggregate;
import concbench.spring.ReadyInfo;
import java.util.Map;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.http.client.ClientHttpRequestFactoryBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The RestClient's request factory for downstream=http: Apache HttpClient 5 (classic) with a
 * PoolingHttpClientConnectionManager of {@value #MAX_CONNECTIONS} connections in total and per
 * route (there is one route, the backend). HttpClient 5's own defaults (25 total, 5 per route)
 * would queue the calls of every request beyond 5 behind each other. Boot's auto-configured
 * RestClient.Builder picks this ClientHttpRequestFactoryBuilder bean up.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnAggregate
@ConditionalOnProperty(name = "concbench.downstream", havingValue = "http")
public class HttpClientConfig {
    static final int MAX_CONNECTIONS = 4096;

    @Bean
    ClientHttpRequestFactoryBuilder<?> clientHttpRequestFactoryBuilder() {
        return ClientHttpRequestFactoryBuilder.httpComponents()
                .withConnectionManagerCustomizer(cm -> cm
                        .setMaxConnTotal(MAX_CONNECTIONS)
                        .setMaxConnPerRoute(MAX_CONNECTIONS));
    }

    @Bean
    ReadyInfo httpClientInfo() {
        return runtime -> runtime.put("client_pool", Map.of(
                "client", "RestClient + Apache HttpClient 5 (classic)",
                "max_total", MAX_CONNECTIONS, "max_per_route", MAX_CONNECTIONS));
    }
}
