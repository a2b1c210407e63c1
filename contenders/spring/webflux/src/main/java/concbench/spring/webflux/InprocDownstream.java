package concbench.spring.webflux;

import concbench.spring.AggregateProperties;
import concbench.spring.ConditionalOnAggregate;
import concbench.spring.UserDetail;
import concbench.spring.UserExtraInfo;
import java.time.Duration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * downstream=inproc: Mono.delay (a timer on Schedulers.parallel(); no thread is held while
 * waiting, the continuation runs on the parallel thread that fired the timer).
 */
@Component
@ConditionalOnAggregate
@ConditionalOnProperty(name = "concbench.downstream", havingValue = "inproc")
public class InprocDownstream implements UserController.ReactiveDownstream {
    private final Duration base;
    private final Duration detail;
    private final Duration extra;

    public InprocDownstream(AggregateProperties p) {
        this.base = Duration.ofMillis(p.baseMs());
        this.detail = Duration.ofMillis(p.detailMs());
        this.extra = Duration.ofMillis(p.extraMs());
    }

    @Override
    public Mono<Long> getUserBaseInfo(long id) {
        return Mono.delay(base).thenReturn(id);
    }

    @Override
    public Mono<UserDetail> getUserDetailInfo(long userId) {
        return Mono.delay(detail).map(tick -> UserDetail.of(userId));
    }

    @Override
    public Mono<UserExtraInfo> getUserExtraInfo(long userId) {
        return Mono.delay(extra).map(tick -> UserExtraInfo.of(userId));
    }
}
