package concbench.spring.webflux;

import concbench.spring.AggregateProperties;
import concbench.spring.ConditionalOnAggregate;
import concbench.spring.UserDetail;
import concbench.spring.UserExtraInfo;
import concbench.spring.Waits;
import java.time.Duration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * downstream=inproc: Mono.delay (a timer on Schedulers.parallel(); no thread is held while
 * waiting, the continuation runs on the parallel thread that fired the timer). Each delay is timed
 * from its subscription (which arms the timer) to its continuation and counted under its kind
 * ({@link Waits}: the proof of the waits).
 */
@Component
@ConditionalOnAggregate
@ConditionalOnProperty(name = "concbench.downstream", havingValue = "inproc")
public class InprocDownstream implements UserController.ReactiveDownstream {
    private final Duration base;
    private final Duration detail;
    private final Duration extra;
    private final Waits waits;

    public InprocDownstream(AggregateProperties p, Waits waits) {
        this.waits = waits;
        this.base = Duration.ofMillis(p.baseMs());
        this.detail = Duration.ofMillis(p.detailMs());
        this.extra = Duration.ofMillis(p.extraMs());
    }

    @Override
    public Mono<Long> getUserBaseInfo(long id) {
        return delay(Waits.Kind.BASE, base).thenReturn(id);
    }

    @Override
    public Mono<UserDetail> getUserDetailInfo(long userId) {
        return delay(Waits.Kind.DETAIL, detail).map(tick -> UserDetail.of(userId));
    }

    @Override
    public Mono<UserExtraInfo> getUserExtraInfo(long userId) {
        return delay(Waits.Kind.EXTRA, extra).map(tick -> UserExtraInfo.of(userId));
    }

    /** Mono.delay(d), timed from the subscription that arms it to its value on the timer's thread. */
    private Mono<Long> delay(Waits.Kind kind, Duration d) {
        return Mono.defer(() -> {
            long armed = System.nanoTime();
            return Mono.delay(d).doOnNext(tick -> waits.add(kind, System.nanoTime() - armed));
        });
    }
}
