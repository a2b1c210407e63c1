// Bare idle coroutines: the reference for spawn-idle's bytes per task.
//
//   java -jar bare-idle-kotlin.jar N HOLD_MS
//
// As the contender: runBlocking, then withContext(Dispatchers.Default), so every launch is a
// child coroutine on Dispatchers.Default. N coroutines that are only delay(HOLD_MS);
// "spawned" once the spawning loop is done; withContext returns when all children have.
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext

fun main(args: Array<String>) {
    val n = args[0].toInt()
    val ms = args[1].toLong()
    runBlocking {
        withContext(Dispatchers.Default) {
            repeat(n) { launch { delay(ms) } }
            println("spawned")
            System.out.flush()
        }
    }
}
