pool.owner @queue capacity 16 stages ["drain"] payload [i32] {
  pool.handler "drain" (%item) {
    pool.release %item
  }
}
pool.emission_bound @producer -> @queue max 2
wave.coroutine @producer(%x: i32) {
  pool.publish @queue "drain" (%x) : i32
  wave.suspend "again"
  pool.publish @queue "drain" (%x) : i32
  pool.publish @queue "drain" (%x) : i32
  wave.terminate
}
