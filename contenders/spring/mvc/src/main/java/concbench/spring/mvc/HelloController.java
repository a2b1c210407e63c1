package concbench.spring.mvc;

import concbench.spring.Hello;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** http-hello: the 200-byte body, built once (StringHttpMessageConverter sets Content-Length). */
@RestController
public class HelloController {

    @GetMapping(value = "/hello", produces = MediaType.TEXT_PLAIN_VALUE)
    public String hello() {
        return Hello.BODY;
    }
}
