package concbench.spring.mvc;

import concbench.spring.BootJson;
import concbench.spring.ConditionalOnAggregate;
import concbench.spring.JsonWriter;
import concbench.spring.Waits;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** The in-process waits made so far ({@link Waits}), for the harness: bytes with their length on
 * either Boot generation ({@link UserJson}). */
@RestController
@ConditionalOnAggregate
public class WaitsController {
    private final Waits waits;
    private final JsonWriter waitsWriter;

    public WaitsController(BootJson json, Waits waits) {
        this.waits = waits;
        this.waitsWriter = json.writerFor(Waits.Report.class);
    }

    @GetMapping("/waits")
    public ResponseEntity<byte[]> getWaits() throws Exception {
        byte[] body = waitsWriter.write(waits.report());
        return UserJson.answer(body);
    }
}
