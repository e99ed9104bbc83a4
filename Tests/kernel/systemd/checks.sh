#!/bin/sh
# The checks of the booted-systemd guest (Tests/kernel/systemd/run.sh):
# systemd is PID 1, the transitiond .deb was installed with dpkg and
# transitiond.socket is enabled. Each check prints `KERNELTEST PASS|FAIL
# NAME: what` on the serial console; `KERNELTEST INFO` lines are figures and
# logs for the note; `KERNELTEST DONE passed=N failed=M` ends, then the
# guest powers off.
out=/dev/ttyS0
passed=0 failed=0
pass() { echo "KERNELTEST PASS $1: $2" > "$out"; passed=$((passed + 1)); }
fail() { echo "KERNELTEST FAIL $1: $2" > "$out"; failed=$((failed + 1)); }
info() { echo "KERNELTEST INFO $*" > "$out"; }
show() { sed "s/^/KERNELTEST INFO   $1: /" "$2" | tail -n "${3:-25}" > "$out"; }
finish() {
  echo "KERNELTEST DONE passed=$passed failed=$failed" > "$out"
  sync
  systemctl poweroff --force --force
}
SOCK=/run/transitiond/transitiond.sock
KT=/usr/local/lib/kt
main_pid() { systemctl show -p MainPID --value transitiond.service; }
# wait_for SECONDS COMMAND...: until COMMAND succeeds (every 0.2 s).
wait_for() {
  limit=$(( $1 * 5 )); shift
  i=0
  until "$@" > /dev/null 2>&1; do
    i=$((i + 1)); [ "$i" -le "$limit" ] || return 1
    sleep 0.2
  done
}
is_active() { [ "$(systemctl is-active "$1")" = "$2" ]; }
hellos() { grep -c '"type":"hello"' "$1" 2>/dev/null || echo 0; }
at_least() { [ "$(hellos "$1")" -ge "$2" ]; }
# For the checks where libinput reads the filter's copy (filter-libinput,
# filter-block): ends FILE, libinput's touch ends so far in its
# debug-events output; touchscreen NODE, udev tags NODE a touchscreen.
ends() { grep -cE '^[ -]event[0-9]+ +TOUCH_(UP|CANCEL) ' "$1" 2>/dev/null; }
at_least_ends() { [ "$(ends "$1")" -ge "$2" ]; }
touchscreen() { udevadm info -q property "$1" 2>/dev/null | grep -qx 'ID_INPUT_TOUCHSCREEN=1'; }
# more_than FILE PATTERN N: FILE has more than N lines with PATTERN;
# at_least_lines FILE PATTERN N: at least N.
more_than() { [ "$(grep -c "$2" "$1" 2>/dev/null)" -gt "$3" ]; }
at_least_lines() { [ "$(grep -c "$2" "$1" 2>/dev/null)" -ge "$3" ]; }
pid_changed() { p=$(main_pid); [ "$p" != 0 ] && [ "$p" != "$1" ] && is_active transitiond.service active; }
# near "GOT" "EXPECTED" TOLERANCE: the same number of values, each within.
near() {
  awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { n = split(a, x, " "); m = split(b, y, " "); if (n != m) exit 1
    for (i = 1; i <= n; i++) { d = x[i] - y[i]; if (d > t || d < -t) exit 1 } }'
}

# The docs' blocks marked `<!-- example: systemd -->`, extracted on the host
# (examples.py --extract systemd: one bash script each, `set -e`, the lines
# the mark leaves out commented out; `list` names them in the documents'
# order). Each runs where a check needs what it sets up, as root, within
# EXAMPLE_LIMIT seconds, and must exit 0; the check then looks for what the
# doc says it does. A block no check here knows runs at the end, and must
# exit 0.
EX=$KT/examples
EXAMPLE_LIMIT=60
examples_run=" "
# example DOC TEXT: finds DOC's block that contains TEXT and runs it; sets
# ex_where (DOC:LINE of its fence, as examples.py names it), ex_status
# (its exit status, 124 after the time limit; 127 when there is no such
# block), ex_seconds; its stdout in /tmp/example.out, stderr in
# /tmp/example.err.
example() {
  ex_where="$1 (a block with '$2')" ex_status=127 ex_seconds=0
  : > /tmp/example.out; : > /tmp/example.err
  for ex in $(cat "$EX/list"); do
    sed -n 2p "$EX/$ex" | grep -q "^# $1:[0-9]*," && grep -v '^#' "$EX/$ex" | grep -qF -- "$2" || continue
    run_example "$ex"
    return
  done
}
run_example() {
  ex_where=$(sed -n '2s/^# \([^ ,]*\),.*/\1/p' "$EX/$1")
  examples_run="$examples_run$1 "
  t0=$(cut -d' ' -f1 /proc/uptime)
  timeout -k 5 "$EXAMPLE_LIMIT" bash "$EX/$1" > /tmp/example.out 2> /tmp/example.err
  ex_status=$?
  ex_seconds=$(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }')
  cp /tmp/example.out "/tmp/example-$1.out"; cp /tmp/example.err "/tmp/example-$1.err"
  # The lines its mark leaves out (`skip line N: why`), not run here either.
  sed -n 's/^# left out (\(.*\)): \(.*\)$/(\1): \2/p' "$EX/$1" | while IFS= read -r left; do
    info "$ex_where: a line skipped $left"
  done
}
# example_ran: it exited 0; else a FAIL line for it, with its output.
example_ran() {
  [ "$ex_status" = 0 ] && return 0
  case "$ex_status" in
    127) fail "$ex_where" "no such block marked systemd in the doc (examples/list: $(tr '\n' ' ' < "$EX/list"))" ;;
    124) fail "$ex_where" "still running after $EXAMPLE_LIMIT s" ;;
    *) fail "$ex_where" "exit status $ex_status after $ex_seconds s" ;;
  esac
  show stdout /tmp/example.out; show stderr /tmp/example.err
  return 1
}

info "systemd $(systemctl --version | head -n 1 | cut -d' ' -f2), kernel $(uname -r), up $(cut -d' ' -f1 /proc/uptime) s"
journalctl -f -o cat -u transitiond.service > /tmp/journal.txt 2>&1 &
# The checks to run: kt.checks= on the kernel's command line, a comma-separated
# list of `systemd` (1 to 6b), `compositor` (6c), `filter-libinput` (6d) and
# `filter-block` (6e); all by default.
CHECKS=$(sed -n 's/.*kt\.checks=\([^ ]*\).*/\1/p' /proc/cmdline)
[ -n "$CHECKS" ] || CHECKS=systemd,compositor,filter-libinput,filter-block
want() { case ",$CHECKS," in *",$1,"*) return 0 ;; esac; return 1; }
insmod "$KT/evdev.ko" 2>/dev/null; insmod "$KT/uinput.ko" 2>/dev/null

# Filter mode under the hardened unit, set up by docs/kiosk.md's block (a
# udev rule gives the service's group /dev/uinput, a drop-in allows the
# device), then `[input] mode = "filter"` and a restart of the service, as
# the doc goes on. Once. The block's own check: /dev/uinput is then group
# transitiond, mode 0660 (once udev has handled the change event it
# triggered: `udevadm settle`), and the unit allows it.
filter_ready=0
setup_filter() {
  [ "$filter_ready" = 0 ] || return 0
  filter_ready=1
  was=$(stat -c '%G %a' /dev/uinput)
  example docs/kiosk.md 'DeviceAllow=/dev/uinput rw'
  if example_ran; then
    udevadm settle --timeout=30
    now_is=$(stat -c '%G %a' /dev/uinput)
    allow=$(systemctl show -p DeviceAllow transitiond.service | tr '\n' ' ')
    if [ "$now_is" = "transitiond 660" ] && echo "$allow" | grep -q '/dev/uinput rw'; then
      pass "$ex_where" "exit 0 in $ex_seconds s: /dev/uinput was $was, is now group transitiond mode 0660; systemctl show -p DeviceAllow: $allow"
    else
      fail "$ex_where" "/dev/uinput was $was, is $now_is (expected transitiond 660); systemctl show -p DeviceAllow: $allow"
      show stderr /tmp/example.err
    fi
  fi
  sed -i 's/^\[input\]$/[input]\nmode = "filter"/' /etc/transitiond/transitiond.toml
  systemctl restart transitiond.service
}

if want systemd; then
  # 1. Socket activation: the socket listens, the service is not running; a
  # client that connects starts it and gets hello.
  if is_active transitiond.socket active && ! is_active transitiond.service active; then
    transitiond subscribe --socket "$SOCK" --json --retry-seconds 60 > /tmp/sub.ndjson 2> /tmp/sub.err &
    if wait_for 30 at_least /tmp/sub.ndjson 1 && is_active transitiond.service active; then
      pass activation "a client connected to the socket before the daemon ran; systemd started it and the client got hello"
    else
      fail activation "no hello, or the service is $(systemctl is-active transitiond.service)"
      show subscribe /tmp/sub.err; show journal /tmp/journal.txt
    fi
  else
    fail activation "before any client: socket $(systemctl is-active transitiond.socket), service $(systemctl is-active transitiond.service)"
  fi

  # 1a. docs/kiosk-web.md's block: enables transitiond-websocket.socket (off
  # until then), restarts the running service so that it gets the socket,
  # and curl of /healthz prints ok. The client reconnects.
  before=$(hellos /tmp/sub.ndjson) pid=$(main_pid)
  was="$(systemctl is-enabled transitiond-websocket.socket) and $(systemctl is-active transitiond-websocket.socket)"
  example docs/kiosk-web.md transitiond-websocket.socket
  if example_ran; then
    if [ "$was" = "disabled and inactive" ] && is_active transitiond-websocket.socket active \
        && [ "$(systemctl is-enabled transitiond-websocket.socket)" = enabled ] \
        && [ "$(cat /tmp/example.out)" = ok ] && pid_changed "$pid" \
        && wait_for 30 at_least /tmp/sub.ndjson $((before + 1)); then
      pass "$ex_where" "exit 0 in $ex_seconds s: transitiond-websocket.socket was $was, now enabled and active; the service restarted (pid $pid → $(main_pid)) and the client reconnected; curl of /healthz printed '$(cat /tmp/example.out)'"
    else
      fail "$ex_where" "the socket was $was, is $(systemctl is-enabled transitiond-websocket.socket) and $(systemctl is-active transitiond-websocket.socket); pid $pid → $(main_pid); curl printed '$(head -c 200 /tmp/example.out)' (expected ok); hellos $before → $(hellos /tmp/sub.ndjson)"
      show stderr /tmp/example.err; show journal /tmp/journal.txt
    fi
  fi

  # 1b. The WebSocket listener of transitiond-websocket.socket: systemd binds
  # 127.0.0.1:8765 and passes it to the service, which has no network of its
  # own (PrivateNetwork=yes, AF_UNIX only); a WebSocket client gets the same
  # hello, and a command from root (the uid read from the kernel's socket
  # table) is answered.
  if "$KT/kt" ws 8765 '{"cmd":"ping"}' > /tmp/ws.txt 2>&1 \
      && grep -q '"type":"hello"' /tmp/ws.txt && grep -q '"type":"pong"' /tmp/ws.txt \
      && [ "$(head -n 1 /tmp/ws.txt | sed 's/"seq":[0-9]*//')" = "$(head -n 1 /tmp/sub.ndjson | sed 's/"seq":[0-9]*//')" ] \
      && [ "$(readlink "/proc/$(main_pid)/ns/net")" != "$(readlink /proc/self/ns/net)" ]; then
    pass websocket "a WebSocket client on 127.0.0.1:8765 (transitiond-websocket.socket) got the Unix client's hello and a pong; the service has a network namespace of its own"
  else
    fail websocket "$(head -c 300 /tmp/ws.txt)"
    show journal /tmp/journal.txt
    systemctl status --no-pager transitiond-websocket.socket > /tmp/ws-unit.txt 2>&1
    show websocket.socket /tmp/ws-unit.txt
    cat /proc/net/tcp > /tmp/ws-tcp.txt 2>&1
    show tcp /tmp/ws-tcp.txt
    sleep 1; "$KT/kt" ws 8765 > /tmp/ws2.txt 2>&1
    show "again after 1 s" /tmp/ws2.txt
  fi

  # 1c. docs/metrics.md's block: enables transitiond-metrics.socket,
  # restarts the service, and curl of 127.0.0.1:9464/metrics gets the
  # daemon's metrics (systemd binds the port; only the daemon answers).
  before=$(hellos /tmp/sub.ndjson) pid=$(main_pid)
  was="$(systemctl is-enabled transitiond-metrics.socket) and $(systemctl is-active transitiond-metrics.socket)"
  example docs/metrics.md transitiond-metrics.socket
  if example_ran; then
    metrics=$(grep -c '^transitiond_' /tmp/example.out)
    if [ "$was" = "disabled and inactive" ] && is_active transitiond-metrics.socket active \
        && [ "$(systemctl is-enabled transitiond-metrics.socket)" = enabled ] \
        && [ "$metrics" -gt 0 ] && grep -q '^# TYPE transitiond_' /tmp/example.out && pid_changed "$pid" \
        && wait_for 30 at_least /tmp/sub.ndjson $((before + 1)); then
      pass "$ex_where" "exit 0 in $ex_seconds s: transitiond-metrics.socket was $was, now enabled and active; the service restarted (pid $pid → $(main_pid)) and the client reconnected; /metrics answered $metrics transitiond_ samples ($(grep -m 1 '^transitiond_input_events_total' /tmp/example.out))"
    else
      fail "$ex_where" "the socket was $was, is $(systemctl is-enabled transitiond-metrics.socket) and $(systemctl is-active transitiond-metrics.socket); pid $pid → $(main_pid); $metrics transitiond_ samples from curl; hellos $before → $(hellos /tmp/sub.ndjson)"
      show stdout /tmp/example.out 15; show stderr /tmp/example.err; show journal /tmp/journal.txt
    fi
  fi

  # 2. Its user: transitiond, not root, no capabilities.
  pid=$(main_pid)
  uid=$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
  caps=$(awk '/^CapEff:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
  if [ "$uid" = "$(id -u transitiond)" ] && [ "$uid" != 0 ] && [ "$caps" = 0000000000000000 ]; then
    pass user "the daemon (pid $pid) runs as transitiond (uid $uid) with no capabilities"
  else
    fail user "pid $pid: uid '$uid' (transitiond is $(id -u transitiond)), CapEff '$caps'"
  fi

  # 3. A uinput touchscreen made from a recording: the hardened service opens
  # it (DeviceAllow=char-input r, group input) and the client gets the same
  # transitions as `replay --fast` on the host.
  mkfifo /tmp/go
  exec 3<> /tmp/go
  transitiond uinput-replay "$KT/gesture.events" --speed 1 --hold-seconds 0.3 --wait-stdin <&3 > /tmp/player.log 2>&1 &
  player=$!
  if "$KT/kt" wait /tmp/player.log 'device /dev/input/event' 20 > /dev/null \
      && "$KT/kt" wait /tmp/journal.txt 'attached /dev/input/event' 30 > /dev/null; then
    node=$(sed -n 's/^device \(\/dev\/input\/event[0-9]*\).*/\1/p' /tmp/player.log | head -n 1)
    node_mode="$node $(stat -c '%A root:%G' "$node")"
    echo go >&3
    wait "$player"
    "$KT/kt" wait /tmp/sub.ndjson '"type":"ended"' 20 > /dev/null
    wait_for 20 "$KT/kt" lifecycle /tmp/sub.ndjson
    cp /tmp/sub.ndjson /tmp/live.ndjson
    if "$KT/kt" compare "$KT/gesture.ndjson" /tmp/live.ndjson > /tmp/compare.txt; then
      pass device "the hardened service read the uinput touchscreen ($node_mode); $(cat /tmp/compare.txt)"
    else
      fail device "$(head -n 1 /tmp/compare.txt)"
      show compare /tmp/compare.txt; show live /tmp/live.ndjson 10
    fi
  else
    fail device "the daemon did not attach to the uinput device"
    show player /tmp/player.log; show journal /tmp/journal.txt
  fi
  exec 3>&-

  # 4. systemctl reload with a changed config: every client gets a new hello.
  before=$(hellos /tmp/sub.ndjson)
  cat >> /etc/transitiond/transitiond.toml <<'TOML'

[[transition]]
name = "menu"
gesture = "edge-pan"
edge = "right"
TOML
  # (the [[transition]] table appended after [input] is a new array item)
  # The reload is docs/kiosk.md's block: `sudo systemctl reload transitiond`.
  pid=$(main_pid)
  example docs/kiosk.md 'systemctl reload transitiond'
  if example_ran; then
    if wait_for 20 at_least /tmp/sub.ndjson $((before + 1)) && [ "$(main_pid)" = "$pid" ]; then
      pass "$ex_where" "exit 0 in $ex_seconds s: the connected client got a new hello (hello $((before + 1))), from the same daemon (pid $pid)"
    else
      fail "$ex_where" "hellos $before → $(hellos /tmp/sub.ndjson), pid $pid → $(main_pid)"
      show journal /tmp/journal.txt
    fi
    if wait_for 20 at_least /tmp/sub.ndjson $((before + 1)) && tail -n 5 /tmp/sub.ndjson | grep -q '"name":"menu"'; then
      pass reload "systemctl reload: the client got a new hello with the new transition, still connected"
    else
      fail reload "no new hello with the new transition after systemctl reload"
      show journal /tmp/journal.txt
    fi
  fi

  # 4b. allow_groups by a supplementary group: a user whose primary group
  # is its own and who is in transitiond's group may command (the hardened
  # service must be able to read the client's groups), and one who is not
  # in it may connect (the socket is 0666 for the test) but not command.
  useradd --system --no-create-home --shell /bin/sh --groups transitiond panelctl 2> /dev/null
  useradd --system --no-create-home --shell /bin/sh outsider 2> /dev/null
  sed -i 's/^allow_groups = .*/allow_groups = ["transitiond"]/' /etc/transitiond/transitiond.toml
  before=$(hellos /tmp/sub.ndjson)
  systemctl reload transitiond
  wait_for 20 at_least /tmp/sub.ndjson $((before + 1))
  chmod 0666 "$SOCK"
  printf '{"cmd":"enable","transition":"back","enabled":true,"id":7}\n' \
    | setpriv --reuid=panelctl --regid=panelctl --init-groups "$KT/kt" session "$SOCK" > /tmp/member.out 2>&1
  printf '{"cmd":"enable","transition":"back","enabled":true,"id":8}\n' \
    | setpriv --reuid=outsider --regid=outsider --init-groups "$KT/kt" session "$SOCK" > /tmp/outsider.out 2>&1
  chmod 0660 "$SOCK"
  if grep -q '"type":"ok","cmd":"enable","id":7' /tmp/member.out && grep -q '"code":"forbidden"' /tmp/outsider.out; then
    pass groups "allow_groups = [\"transitiond\"]: a client in the group only as a supplementary one (uid $(id -u panelctl), groups $(id -G panelctl | tr ' ' ',')) may command; one outside it is refused (forbidden)"
  else
    fail groups "member: $(tr '\n' ' ' < /tmp/member.out | cut -c1-300); outsider: $(tr '\n' ' ' < /tmp/outsider.out | cut -c1-300)"
    show journal /tmp/journal.txt
  fi

  # 5. kill -SEGV: systemd restarts the daemon; the socket stays, the client reconnects.
  pid=$(main_pid)
  before=$(hellos /tmp/sub.ndjson)
  kill -SEGV "$pid"
  if wait_for 30 pid_changed "$pid" && is_active transitiond.socket active && wait_for 30 at_least /tmp/sub.ndjson $((before + 1)); then
    pass restart "after kill -SEGV of pid $pid, systemd restarted it as pid $(main_pid) (NRestarts $(systemctl show -p NRestarts --value transitiond)); the socket stayed and the client reconnected"
  else
    fail restart "pid $pid → $(main_pid), service $(systemctl is-active transitiond.service), socket $(systemctl is-active transitiond.socket)"
    show journal /tmp/journal.txt
  fi

  # 6. A stopped daemon (SIGSTOP) is killed by the watchdog and restarted.
  pid=$(main_pid)
  t0=$(cut -d' ' -f1 /proc/uptime)
  kill -STOP "$pid"
  if wait_for 60 pid_changed "$pid"; then
    t1=$(cut -d' ' -f1 /proc/uptime)
    if journalctl -u transitiond.service --no-pager | grep -q -i 'watchdog timeout'; then
      pass watchdog "SIGSTOP'ed pid $pid: the watchdog killed it after $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s and systemd restarted it as pid $(main_pid)"
    else
      fail watchdog "pid $pid was replaced, but the journal has no watchdog timeout"
    fi
  else
    fail watchdog "pid $pid still the daemon 60 s after SIGSTOP"
    kill -CONT "$pid"
  fi

  # 6b. Filter mode (setup_filter) under the hardened unit: the UI's copy of
  # the panel (group input) gets the touches `back` does not claim: A, C and D
  # of filter-mix.events, well-formed, not B.
  setup_filter
  mkfifo /tmp/go2
  exec 3<> /tmp/go2
  transitiond uinput-replay "$KT/filter-mix.events" --speed 1 --hold-seconds 0.3 --wait-stdin <&3 > /tmp/player2.log 2>&1 &
  player=$!
  if "$KT/kt" wait /tmp/player2.log 'device /dev/input/event' 20 > /dev/null \
      && "$KT/kt" wait /tmp/journal.txt 'filter: the touches of' 30 > /dev/null; then
    copy=$(sed -n 's/.*filter: the touches of .* go to \(\/dev\/input\/event[0-9]*\).*/\1/p' /tmp/journal.txt | tail -n 1)
    copy_mode="$copy $(stat -c '%A root:%G' "$copy" 2>/dev/null)"
    "$KT/kt" mtwatch "$copy" > /tmp/mt.txt 2> /tmp/mtwatch.log &
    watcher=$!
    "$KT/kt" wait /tmp/mtwatch.log 'watching ' 10 > /dev/null
    echo go >&3
    wait "$player"
    sleep 0.5
    kill -INT "$watcher"; wait "$watcher"
    touches=$(sed -n 's/^touch [0-9]*: x0=\([0-9]*\) y0=\([0-9]*\).*/\1,\2/p' /tmp/mt.txt | tr '\n' ' ')
    if grep -q '^touches=3 open=0 errors=0' /tmp/mt.txt && [ "$touches" = "1638,1152 41,691 1228,1842 " ]; then
      pass filter "the hardened service in filter mode (udev rule for /dev/uinput, DeviceAllow drop-in): the UI's copy ($copy_mode) got the drags A and D and the edge tap C, not the drag back claimed: $(tail -n 1 /tmp/mt.txt)"
    else
      fail filter "the copy got '$touches' (expected A, C, D: '1638,1152 41,691 1228,1842 ')"
      show mtwatch /tmp/mt.txt; show journal /tmp/journal.txt
    fi
  else
    fail filter "no copy of the panel in filter mode"
    show player /tmp/player2.log; show journal /tmp/journal.txt; ls -l /dev/uinput > /tmp/uinput.txt 2>&1; show uinput /tmp/uinput.txt
  fi
  exec 3>&-
fi

# 6c. A compositor stack on the filter's copy. The panel is mounted a quarter
# turn clockwise: a udev rule gives it and its copy (matched by the panel's
# name, with which the copy's begins) LIBINPUT_CALIBRATION_MATRIX
# "0 -1 1 1 0 0". transitiond takes the matrix from the panel, so `back`
# (the screen's left edge) is the panel's bottom edge; libinput takes it from
# the copy, which carries the panel's raw positions. compositor.events
# (make-filter-recording.py --compositor): M a tap in the middle, B a drag up
# from the panel's bottom edge that `back` claims, Q a tap at the panel's
# (0.25, 0.75), L a drag right from the panel's left edge. Two readers at
# once: `libinput debug-events` on the udev seat (it opens the grabbed panel
# and the copy), and cage (wlroots 0.15: WLR_BACKENDS=headless,libinput, a
# session from seatd, the pixman renderer) running wev, which prints the
# wl_touch events cage sends it. Both must get M, Q and L where the screen
# has them, and not B. Two things found here: Debian's cage is built with
# Xwayland and will not start without the binary (WLR_XWAYLAND names one
# that is never run: wev is a Wayland client); and with
# WLR_LIBINPUT_NO_DEVICES=1 wlroots 0.15 announced the devices present at
# its start only with the first input event, whose touch was then lost
# ("could not create touch point"), so it is not set: the seat has devices.
if want compositor; then
  t_compositor=$(cut -d' ' -f1 /proc/uptime)
  cat > /etc/udev/rules.d/80-kt-panel.rules <<'RULES'
# The panel and its copy ("… (transitiond filter)"): one matrix for both.
SUBSYSTEM=="input", KERNEL=="event*", ATTRS{name}=="transitiond synthetic 10-point panel*", ENV{LIBINPUT_CALIBRATION_MATRIX}="0 -1 1 1 0 0"
# The exact name matches the panel alone.
SUBSYSTEM=="input", KERNEL=="event*", ATTRS{name}=="transitiond synthetic 10-point panel", ENV{KT_EXACT_NAME}="1"
RULES
  udevadm control --reload
  # A copy outlives its panel (6b's is still there) and keeps the udev
  # properties it was made with: a restart of the daemon drops it, and the
  # next one is made under the rule.
  if [ "$filter_ready" = 1 ]; then systemctl restart transitiond.service; else setup_filter; fi
  seen=$(grep -c 'filter: the touches of' /tmp/journal.txt)
  mkfifo /tmp/go3
  exec 3<> /tmp/go3
  transitiond uinput-replay "$KT/compositor.events" --speed 1 --hold-seconds 0.5 --wait-stdin <&3 > /tmp/player3.log 2>&1 &
  player=$!
  if "$KT/kt" wait /tmp/player3.log 'device /dev/input/event' 20 > /dev/null \
      && wait_for 30 more_than /tmp/journal.txt 'filter: the touches of' "$seen"; then
    panel=$(sed -n 's/^device \(\/dev\/input\/event[0-9]*\).*/\1/p' /tmp/player3.log | head -n 1)
    copy=$(sed -n 's/.*filter: the touches of .* go to \(\/dev\/input\/event[0-9]*\).*/\1/p' /tmp/journal.txt | tail -n 1)
    udevadm settle
    udevadm info -q property "$panel" > /tmp/udev-panel.txt 2>&1
    udevadm info -q property "$copy" > /tmp/udev-copy.txt 2>&1
    info "compositor: the panel $panel: $(grep -E '^(NAME|ID_INPUT_TOUCHSCREEN|LIBINPUT_CALIBRATION_MATRIX|KT_EXACT_NAME|LIBINPUT_DEVICE_GROUP)=' /tmp/udev-panel.txt | tr '\n' ' ')"
    info "compositor: its copy $copy: $(grep -E '^(NAME|ID_INPUT_TOUCHSCREEN|LIBINPUT_CALIBRATION_MATRIX|KT_EXACT_NAME|LIBINPUT_DEVICE_GROUP)=' /tmp/udev-copy.txt | tr '\n' ' ')"
    info "compositor: $(grep "geometry of $panel" /tmp/journal.txt | tail -n 1)"
    # libinput on the udev seat, as a compositor would open it.
    stdbuf -oL libinput debug-events > /tmp/libinput.txt 2>&1 &
    li=$!
    # cage with wev, as the user kiosk (cage refuses to run as root); seatd
    # gives it the seat and opens the input devices for it (group kiosk may
    # use seatd's socket), so kiosk needs no group input.
    useradd --system --user-group --no-create-home --shell /bin/sh kiosk 2> /dev/null
    mkdir -p /run/kt-xdg && chown kiosk:kiosk /run/kt-xdg && chmod 700 /run/kt-xdg
    : > /tmp/wev.txt; chown kiosk /tmp/wev.txt
    seatd -g kiosk > /tmp/seatd.log 2>&1 &
    seatd_pid=$!
    wait_for 10 grep -q 'seatd started' /tmp/seatd.log
    setpriv --reuid=kiosk --regid=kiosk --init-groups env XDG_RUNTIME_DIR=/run/kt-xdg LIBSEAT_BACKEND=seatd \
      WLR_BACKENDS=headless,libinput WLR_RENDERER=pixman WLR_XWAYLAND=/usr/bin/true \
      cage -d -- sh -c 'WAYLAND_DEBUG=1 exec stdbuf -oL wev > /tmp/wev.txt 2>&1' > /tmp/cage.log 2>&1 &
    cage_pid=$!
    li_ready=0 cage_ready=0
    wait_for 30 grep -q "^-$(basename "$copy") .*DEVICE_ADDED" /tmp/libinput.txt && li_ready=1
    # cage is ready once it has the copy open (seatd passed it the
    # descriptor) and wev has asked for the seat's touch (WAYLAND_DEBUG
    # prints the request, unbuffered); or once it is gone.
    cage_up() {
      ! kill -0 "$cage_pid" || { readlink "/proc/$cage_pid/fd/"* | grep -qx "$copy" && grep -q 'get_touch' /tmp/wev.txt; }
    }
    wait_for 60 cage_up && kill -0 "$cage_pid" && cage_ready=1
    cage_fds=$(ls -l "/proc/$cage_pid/fd" 2>/dev/null | grep -o '/dev/input/event[0-9]*' | sort | tr '\n' ' ')
    # The other way to keep the panel from the UI: LIBINPUT_IGNORE_DEVICE
    # on it alone (the exact name). libinput reads it when it adds a device,
    # so a new context (`libinput list-devices`) must list the copy and not
    # the panel; the two readers above already have theirs.
    echo 'SUBSYSTEM=="input", KERNEL=="event*", ATTRS{name}=="transitiond synthetic 10-point panel", ENV{LIBINPUT_IGNORE_DEVICE}="1"' \
      > /etc/udev/rules.d/81-kt-ignore-panel.rules
    udevadm control --reload
    udevadm trigger --action=change --settle "$panel"
    libinput list-devices > /tmp/list-devices.txt 2>&1
    listed=$(sed -n 's/^Device: *//p' /tmp/list-devices.txt | grep 'transitiond synthetic' | tr '\n' ';')
    udevadm info -q property "$panel" > /tmp/udev-panel-ignore.txt 2>&1
    if [ "$listed" = "transitiond synthetic 10-point panel (transitiond filter);" ] \
        && grep -q '^LIBINPUT_IGNORE_DEVICE=1' /tmp/udev-panel-ignore.txt; then
      pass compositor:ignore "with LIBINPUT_IGNORE_DEVICE=1 on the panel (a rule on its exact name), libinput list-devices lists the copy alone: $(grep -A 20 "(transitiond filter)" /tmp/list-devices.txt | grep -m 1 '^Calibration' | tr -s ' ')"
    else
      fail compositor:ignore "libinput list-devices listed '$listed' (expected the copy alone)"
      show list-devices /tmp/list-devices.txt 40; show udev-panel /tmp/udev-panel-ignore.txt 30
    fi
    echo go >&3
    wait "$player"
    # M, Q and L reach the copy: wait for their ends (B, were it given to
    # the UI, would end before Q and show in the positions).
    [ "$li_ready" = 0 ] || wait_for 30 at_least_lines /tmp/libinput.txt 'TOUCH_UP' 3
    [ "$cage_ready" = 0 ] || wait_for 30 at_least_lines /tmp/wev.txt 'wl_touch\] up:' 3
    # The touches' first positions, and the panel's own events (none: it is
    # grabbed). libinput: percent of the screen; wev: pixels of 1280x720.
    # (debug-events marks a line whose device differs from the line
    # before's with a leading `-`.)
    sed 's|/ *|/|g' /tmp/libinput.txt | awk -v n="$(basename "$copy")" '($1 == n || $1 == "-" n) && $2 == "TOUCH_DOWN" { sub("/", " ", $6); printf "%s ", $6 }' > /tmp/li-downs.txt
    li_ups=$(grep -c "^[ -]$(basename "$copy") .*TOUCH_UP" /tmp/libinput.txt)
    li_panel=$(grep -c "^[ -]$(basename "$panel") .*TOUCH" /tmp/libinput.txt)
    sed -n 's/.*wl_touch\] down:.*x, y: \([0-9.]*\), \([0-9.]*\).*/\1 \2/p' /tmp/wev.txt | tr '\n' ' ' > /tmp/wev-downs.txt
    wev_ups=$(grep -c 'wl_touch\] up:' /tmp/wev.txt)
    if [ "$li_ready" = 1 ] && near "$(cat /tmp/li-downs.txt)" "50 50 25 25 50 1" 0.5 && [ "$li_ups" = 3 ] && [ "$li_panel" = 0 ]; then
      pass compositor:libinput "libinput $(libinput --version) (debug-events on seat0, which holds the grabbed panel $panel and the copy $copy, both with the udev matrix): M, Q and L from the copy at $(cat /tmp/li-downs.txt)(x y, % of the screen), 3 lifts, not B, nothing from the panel"
    else
      fail compositor:libinput "ready $li_ready; the copy's touches began at '$(cat /tmp/li-downs.txt)' (expected 50 50 25 25 50 1, % of the screen), $li_ups lifts (expected 3), $li_panel events from the panel (expected 0)"
      grep -v -E 'TOUCH_(MOTION|FRAME)' /tmp/libinput.txt > /tmp/li-short.txt; show libinput /tmp/li-short.txt 30
    fi
    if [ "$cage_ready" = 1 ] && near "$(cat /tmp/wev-downs.txt)" "640 360 320 180 640 7.2" 4 && [ "$wev_ups" = 3 ]; then
      pass compositor:cage "cage 0.1.4 (wlroots 0.15: headless and libinput backends, a seatd session, user kiosk; it has open $cage_fds) gave its client wev M, Q and L at $(cat /tmp/wev-downs.txt)(x y, pixels of 1280x720), 3 lifts, not B"
    else
      fail compositor:cage "ready $cage_ready (it had open: $cage_fds); wev's touches began at '$(cat /tmp/wev-downs.txt)' (expected 640 360 320 180 640 7.2), $wev_ups lifts (expected 3)"
      grep -v -E 'wl_touch\] motion|depressed|latched|locked' /tmp/wev.txt > /tmp/wev-short.txt; show wev /tmp/wev-short.txt 30
      show cage /tmp/cage.log 20; show seatd /tmp/seatd.log 10
    fi
    info "compositor: the whole check took $(awk -v a="$t_compositor" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }') s of the guest's time"
    kill "$cage_pid" "$li" 2>/dev/null; wait "$cage_pid" "$li" 2>/dev/null
    kill "$seatd_pid" 2>/dev/null
  else
    fail compositor "no copy of the panel in filter mode"
    show player /tmp/player3.log; show journal /tmp/journal.txt
  fi
  exec 3>&-
fi

# 6d. libinput on a copy with the `[filter]` rules. `transitiond run --mode
# filter` (as root, beside the service, which is stopped meanwhile so that
# it does not take the panel) with max_contacts = 1, palm_mm = 30,
# ghost_touches = "quarantine", transform = true and `[input] rotation = 90`;
# its copy read by `libinput debug-events --device` (the path backend: udev
# must have tagged the copy a touchscreen) and by `kt mtwatch`. The panel
# ("kt libinput panel", so that 6c's rules do not match it) plays
# libinput.events (make-filter-recording.py --libinput), then again, destroyed
# mid-drag. Expected on libinput, in % of the screen (the panel's (x, y) at
# (1 - y, x), as the copy carries it): round 1, the ghost taps G at 85/85
# (the first two of five), the drag A from 60/20 to 60/60 in one piece (the
# second finger that lands on the panel meanwhile is withheld), not the palms
# P and W, C from 40/30 ended at the frame it becomes a palm (y under 50),
# R at 15/30; round 2, G, then A ended when the panel goes (y under 41).
# Each touch down ends (TOUCH_UP or TOUCH_CANCEL) and each touch event is in
# a TOUCH_FRAME (`kt litouch`); the copy's evdev stream is well-formed.
if want filter-libinput; then
  t_li=$(cut -d' ' -f1 /proc/uptime)
  d=/tmp/filter-libinput
  mkdir -p "$d"
  socket_was=$(systemctl is-active transitiond.socket)
  systemctl stop transitiond.socket transitiond.service
  cat > "$d/config.toml" <<'TOML'
[input]
mode = "filter"
rotation = 90

[filter]
max_contacts = 1
palm_mm = 30
ghost_touches = "quarantine"
transform = true

[[transition]]
name = "back"
gesture = "edge-pan"
edge = "left"
TOML
  mkfifo "$d/go"
  exec 3<> "$d/go"
  transitiond uinput-replay "$KT/libinput.events" --name "kt libinput panel" --speed 1 --hold-seconds 0.3 --wait-stdin <&3 > "$d/player.log" 2>&1 &
  player=$!
  "$KT/kt" wait "$d/player.log" 'device /dev/input/event' 20 > /dev/null
  timeout -k 5 120 transitiond run --device auto --socket "$d/t.sock" --config "$d/config.toml" > "$d/daemon.out" 2> "$d/daemon.log" &
  daemon=$!
  li_problem="" li="" watcher=""
  if ! "$KT/kt" wait "$d/daemon.log" 'filter: the touches of' 30 > /dev/null; then
    li_problem="no copy of the panel"
  else
    copy=$(sed -n 's/.*filter: the touches of .* go to \(\/dev\/input\/event[0-9]*\).*/\1/p' "$d/daemon.log" | head -n 1)
    udevadm settle --timeout=30
    if ! wait_for 10 touchscreen "$copy"; then
      li_problem="udev did not tag the copy $copy a touchscreen"
      udevadm info -q property "$copy" > "$d/udev.txt" 2>&1; show udev "$d/udev.txt" 30
    fi
  fi
  if [ -z "$li_problem" ]; then
    stdbuf -oL libinput debug-events --device "$copy" > "$d/libinput.txt" 2> "$d/libinput.err" &
    li=$!
    "$KT/kt" mtwatch "$copy" > "$d/mt.txt" 2> "$d/mtwatch.log" &
    watcher=$!
    if ! wait_for 30 grep -q "^-$(basename "$copy") .*DEVICE_ADDED.*cap:[a-zA-Z]*t" "$d/libinput.txt" \
        || ! "$KT/kt" wait "$d/mtwatch.log" 'watching ' 10 > /dev/null; then
      li_problem="libinput debug-events did not add the copy as a touch device, or kt mtwatch did not start"
    fi
  fi
  if [ -n "$li_problem" ]; then
    kill "$player" $li $watcher 2>/dev/null; wait "$player" $li $watcher 2>/dev/null
  else
    # Round 1: the whole recording; R's lift is the fifth end, the last.
    echo go >&3
    wait "$player"
    "$KT/kt" wait "$d/daemon.log" 'lost /dev/input' 10 > /dev/null
    wait_for 20 at_least_ends "$d/libinput.txt" 5
    round1=$(ends "$d/libinput.txt")
    # Round 2: the same panel again, destroyed 0.85 s in: A down and moving,
    # the second finger down (withheld).
    cut=$(awk '/^E: / { if ($2 + 0 >= 0.85) { print n; exit } n++ }' "$KT/libinput.events")
    exec 3>&-
    rm -f "$d/go"; mkfifo "$d/go"
    exec 3<> "$d/go"
    transitiond uinput-replay "$KT/libinput.events" --name "kt libinput panel" --speed 1 --destroy-after-events "$cut" --wait-stdin <&3 > "$d/player2.log" 2>&1 &
    player=$!
    if "$KT/kt" wait "$d/daemon.log" 'attached /dev/input/event' 20 2 > /dev/null; then
      echo go >&3
      wait "$player"
      "$KT/kt" wait "$d/daemon.log" 'lost /dev/input' 10 2 > /dev/null
      wait_for 20 at_least_ends "$d/libinput.txt" 7
    else
      li_problem="the daemon did not attach the panel again"
      kill "$player" 2>/dev/null; wait "$player" 2>/dev/null
    fi
    kill "$li" 2>/dev/null; wait "$li" 2>/dev/null
    kill -INT "$watcher" 2>/dev/null; wait "$watcher"
    "$KT/kt" litouch "$d/libinput.txt" > "$d/touches.txt"
    li_status=$?
    downs=$(sed -n 's/^touch [0-9]*: slot=[0-9]* x0=\([0-9.]*\) y0=\([0-9.]*\).*/\1 \2/p' "$d/touches.txt" | tr '\n' ' ')
    # last N: the last position of touch N (x y), and how it ended.
    last() { sed -n "s/^touch $1: .* x1=\([0-9.]*\) y1=\([0-9.]*\) motions=[0-9]* end=\(.*\)/\1 \2 \3/p" "$d/touches.txt"; }
    # between VALUE LOW HIGH
    between() { awk -v v="$1" -v a="$2" -v b="$3" 'BEGIN { exit !(v != "" && v >= a && v <= b) }'; }
    a_end=$(last 2) c_end=$(last 4) a2_end=$(last 7)
    bugs=$(grep -ci 'bug' "$d/libinput.txt")
    ghosts=$(grep -c 'ghost touches on' "$d/daemon.log")
    # Every problem found, in li_problem.
    problem() { li_problem="${li_problem:+$li_problem; }$*"; }
    [ "$li_status" = 0 ] && grep -q '^touches=7 open=0 errors=0 ' "$d/touches.txt" \
      || problem "kt litouch: $(tail -n 1 "$d/touches.txt") (expected 7 touches, none open, no error)"
    near "$downs" "85 85 60 20 85 85 40 30 15 30 85 85 60 20" 0.5 \
      || problem "the touches began at '$downs' (expected G, A, G, C, R, then G, A: 85 85 60 20 85 85 40 30 15 30 85 85 60 20, ± 0.5 %)"
    near "$(echo "$a_end" | cut -d' ' -f1-2)" "60 60" 0.5 && [ "${a_end##* }" = up ] \
      || problem "the drag A ended at '$a_end' (expected 60 60 up: one touch to the end of the drag)"
    between "$(echo "$c_end" | cut -d' ' -f2)" 45 50.5 && [ -n "$c_end" ] && [ "${c_end##* }" != open ] \
      || problem "C ended at '$c_end' (expected y 45 to 50.5, up or cancel: where it became a palm, not at its lift at 70)"
    between "$(echo "$a2_end" | cut -d' ' -f2)" 20.5 41 && [ -n "$a2_end" ] && [ "${a2_end##* }" != open ] \
      || problem "round 2's A ended at '$a2_end' (expected y 20.5 to 41, up or cancel: moved, and ended when the panel went)"
    grep -q '^touches=7 open=0 errors=0 ' "$d/mt.txt" \
      || problem "the copy's evdev stream (kt mtwatch): $(tail -n 1 "$d/mt.txt") (expected 7 touches, none open, no error)"
    [ "$round1" = 5 ] || problem "$round1 touch ends on libinput after round 1 (expected 5)"
    [ "$bugs" = 0 ] || problem "$bugs lines of libinput's about a bug (expected none)"
    [ "$ghosts" = 1 ] || problem "$ghosts ghost tap patterns logged by the daemon (expected 1)"
  fi
  if [ -z "$li_problem" ]; then
    pass filter-libinput "libinput $(libinput --version) on the copy $copy ($(grep -m 1 'DEVICE_ADDED' "$d/libinput.txt" | sed 's/.*DEVICE_ADDED *//; s/ seat0.*//'), ID_INPUT_TOUCHSCREEN=1) of a panel with max_contacts = 1, palm_mm = 30, ghost_touches = quarantine, transform = true, rotation = 90: $(tail -n 1 "$d/touches.txt"), they began at $downs(% of the screen: G, A, G, C, R; then G, A cut by the panel's removal); the second finger, the two palms and the third to fifth ghost taps never reached it; A went on to $(echo "$a_end" | cut -d' ' -f1-2), C ended at $(echo "$c_end" | cut -d' ' -f1-2) (a palm from y 50 on), round 2's A at $(echo "$a2_end" | cut -d' ' -f1-2) ($(echo "$a2_end" | cut -d' ' -f3)) as its panel went; the copy: $(tail -n 1 "$d/mt.txt" | cut -d' ' -f1-3); $(grep -m 1 'ghost touches on' "$d/daemon.log" | sed 's/.*\(ghost touches on\)/\1/' | cut -c1-160) ($(awk -v a="$t_li" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }') s)"
  else
    fail filter-libinput "$li_problem"
    show touches "$d/touches.txt" 20; grep -v -E 'TOUCH_(MOTION|FRAME)' "$d/libinput.txt" > "$d/li-short.txt"; show libinput "$d/li-short.txt" 30
    show libinput-stderr "$d/libinput.err" 10; show mtwatch "$d/mt.txt" 10; show daemon "$d/daemon.log" 20; show player "$d/player.log" 5
  fi
  kill "$daemon" 2>/dev/null; wait "$daemon" 2>/dev/null
  exec 3>&-
  [ "$socket_was" != active ] || systemctl start transitiond.socket
fi

# 6e. libinput on a copy with `[filter] block = ["pinch"]`, and the UI's
# `filter_regions`. `transitiond run --mode filter` (as root, the service
# stopped meanwhile, as in 6d) with block = ["pinch"] and nothing else of
# [filter] (the hold 80 ms); its copy of "kt block panel" read by `libinput
# debug-events --device`. A new panel each round, attached by the same
# daemon, which keeps its copy: (1) block.events (make-filter-recording.py
# --block): a quick pinch out P, a still two-finger tap T, a two-finger
# swipe S; libinput must see P's first finger alone, whole (down at 45/50,
# up at 27/50), and T's and S's two fingers each. (2) Over one connection
# (`kt session`, held open), `filter_regions` with one region, the whole
# screen, `block: []`; block-pinch.events (P alone): both fingers. (3)
# `regions: null` on that connection: P's first finger alone. (4) The
# region again, then the connection closed: the config's regions are back,
# P's first finger alone. Every touch down ended, in frames (`kt litouch`);
# the daemon's /metrics counts 1 touch withheld for block after round 1, 3
# at the end; `hello` of a second client shows the regions in force.
if want filter-block; then
  t_bl=$(cut -d' ' -f1 /proc/uptime)
  d=/tmp/filter-block
  mkdir -p "$d"
  socket_was=$(systemctl is-active transitiond.socket)
  systemctl stop transitiond.socket transitiond.service
  cat > "$d/config.toml" <<'TOML'
[input]
mode = "filter"

[filter]
block = ["pinch"]

[[transition]]
name = "back"
gesture = "edge-pan"
edge = "left"
TOML
  region='{"x":[0,1],"y":[0,1],"block":[]}'
  # withheld: the daemon's transitiond_touches_withheld_total{reason="block"}.
  withheld() { curl -s --max-time 5 http://127.0.0.1:9474/metrics | sed -n 's/^transitiond_touches_withheld_total{reason="block"} //p'; }
  bl_problem="" li="" player="" session=""
  problem() { bl_problem="${bl_problem:+$bl_problem; }$*"; }
  # panel N RECORDING: the Nth panel, waiting on fd 3 to play RECORDING,
  # once the daemon has attached it (its Nth `attached`).
  panel() {
    exec 3>&-
    rm -f "$d/go"; mkfifo "$d/go"
    exec 3<> "$d/go"
    transitiond uinput-replay "$2" --name "kt block panel" --speed 1 --hold-seconds 0.3 --wait-stdin <&3 4>&- > "$d/player$1.log" 2>&1 &
    player=$!
    "$KT/kt" wait "$d/daemon.log" 'attached /dev/input/event' 20 "$1" > /dev/null && return 0
    problem "the daemon did not attach panel $1"
    kill "$player" 2>/dev/null; wait "$player" 2>/dev/null
    player=""
    return 1
  }
  # go N ENDS: plays panel N's recording; returns once the daemon has lost
  # the panel and libinput has printed ENDS touch ends in all (or 10 s on).
  go() {
    echo go >&3
    wait "$player"
    "$KT/kt" wait "$d/daemon.log" 'lost /dev/input' 10 "$1" > /dev/null
    wait_for 10 at_least_ends "$d/libinput.txt" "$2"
    sleep 0.2
  }
  # session_send LINE: sends LINE over the session's connection (a subshell: a
  # session gone would be a SIGPIPE, not the end of these checks).
  session_send() { ( trap '' PIPE; echo "$1" >&4 ) 2>/dev/null || problem "kt session could not take '$1' (it exited: $(tr '\n' ' ' < "$d/session.err"))"; }
  # reply ID: the session's reply to the command with this id must be ok.
  reply() {
    "$KT/kt" wait "$d/session.out" "\"id\":$1}" 10 > /dev/null
    grep -qx "{\"type\":\"ok\",\"cmd\":\"filter_regions\",\"id\":$1}" "$d/session.out" \
      || { problem "filter_regions id $1: the reply was '$(grep "\"id\":$1}" "$d/session.out")' (expected {\"type\":\"ok\",\"cmd\":\"filter_regions\",\"id\":$1}; kt session: $(tr '\n' ' ' < "$d/session.err"))"; return 1; }
  }
  # --verbose: the regions in force are said in a debug line when they change.
  timeout -k 5 120 transitiond run --verbose --device auto --socket "$d/t.sock" --config "$d/config.toml" --metrics 127.0.0.1:9474 > "$d/daemon.out" 2> "$d/daemon.log" &
  daemon=$!
  if panel 1 "$KT/block.events"; then
    if ! "$KT/kt" wait "$d/daemon.log" 'filter: the touches of' 30 > /dev/null; then
      problem "no copy of the panel"
    else
      copy=$(sed -n 's/.*filter: the touches of .* go to \(\/dev\/input\/event[0-9]*\).*/\1/p' "$d/daemon.log" | head -n 1)
      udevadm settle --timeout=30
      wait_for 10 touchscreen "$copy" || problem "udev did not tag the copy $copy a touchscreen"
    fi
  fi
  if [ -z "$bl_problem" ]; then
    stdbuf -oL libinput debug-events --device "$copy" > "$d/libinput.txt" 2> "$d/libinput.err" 4>&- &
    li=$!
    wait_for 30 grep -q "^-$(basename "$copy") .*DEVICE_ADDED.*cap:[a-zA-Z]*t" "$d/libinput.txt" \
      || problem "libinput debug-events did not add the copy $copy as a touch device"
  fi
  if [ -n "$bl_problem" ]; then
    for bg in $player $li; do kill "$bg" 2>/dev/null; wait "$bg" 2>/dev/null; done
  else
    # Round 1: the config's block; P's second finger withheld.
    go 1 5
    r1=$(ends "$d/libinput.txt") m1=$(withheld)
    # Round 2: the UI's region lets pinches through, over a connection held open.
    rm -f "$d/cmds"; mkfifo "$d/cmds"
    "$KT/kt" session "$d/t.sock" < "$d/cmds" > "$d/session.out" 2> "$d/session.err" &
    session=$!
    exec 4> "$d/cmds"
    session_send "{\"cmd\":\"filter_regions\",\"regions\":[$region],\"id\":1}"
    if reply 1 && "$KT/kt" wait "$d/daemon.log" "the UI's (filter_regions)" 10 > /dev/null; then
      "$KT/kt" session "$d/t.sock" < /dev/null > "$d/hello-set.txt" 2>&1
      panel 2 "$KT/block-pinch.events" && go 2 7
    fi
    r2=$(ends "$d/libinput.txt")
    # Round 3: `null` brings the config's regions (none) back.
    session_send '{"cmd":"filter_regions","regions":null,"id":2}'
    if reply 2 && "$KT/kt" wait "$d/daemon.log" "the config's again" 10 > /dev/null; then
      panel 3 "$KT/block-pinch.events" && go 3 8
    fi
    r3=$(ends "$d/libinput.txt")
    # Round 4: the region again, then the connection closed: the config's back.
    session_send "{\"cmd\":\"filter_regions\",\"regions\":[$region],\"id\":3}"
    reply 3 && "$KT/kt" wait "$d/daemon.log" "the UI's (filter_regions)" 10 2 > /dev/null
    exec 4>&-
    wait "$session"; session_status=$?
    [ "$session_status" = 0 ] || problem "kt session exited $session_status: $(tr '\n' ' ' < "$d/session.err")"
    if "$KT/kt" wait "$d/daemon.log" "the config's again" 10 2 > /dev/null; then
      "$KT/kt" session "$d/t.sock" < /dev/null > "$d/hello-back.txt" 2>&1
      panel 4 "$KT/block-pinch.events" && go 4 9
    else
      problem "the daemon did not bring the config's regions back when the client that set them went (its log: $(grep -c "the config's again" "$d/daemon.log") lines 'the config's again', expected 2)"
    fi
    r4=$(ends "$d/libinput.txt") m4=$(withheld)
    kill "$li" 2>/dev/null; wait "$li" 2>/dev/null
    "$KT/kt" litouch "$d/libinput.txt" > "$d/touches.txt"
    li_status=$?
    downs=$(sed -n 's/^touch [0-9]*: slot=[0-9]* x0=\([0-9.]*\) y0=\([0-9.]*\).*/\1 \2/p' "$d/touches.txt" | tr '\n' ' ')
    lasts=$(sed -n 's/^touch [0-9]*: .* x1=\([0-9.]*\) y1=\([0-9.]*\) .*/\1 \2/p' "$d/touches.txt" | tr '\n' ' ')
    ups=$(grep -c ' end=up$' "$d/touches.txt")
    [ "$r1" = 5 ] || problem "round 1 (block = [\"pinch\"]): libinput saw $r1 touches end (expected 5: the pinch as its first finger alone, the tap's two, the swipe's two)"
    [ "$((r2 - r1))" = 2 ] || problem "round 2 (filter_regions: block [] on the whole screen): libinput saw $((r2 - r1)) touches of the pinch end (expected 2: both fingers)"
    [ "$((r3 - r2))" = 1 ] || problem "round 3 (filter_regions null: the config's block again): libinput saw $((r3 - r2)) touches of the pinch end (expected 1: its first finger alone)"
    [ "$((r4 - r3))" = 1 ] || problem "round 4 (the client that set the regions gone: the config's block again): libinput saw $((r4 - r3)) touches of the pinch end (expected 1: its first finger alone)"
    [ "$li_status" = 0 ] && grep -q '^touches=9 open=0 errors=0 ' "$d/touches.txt" && [ "$ups" = 9 ] \
      || problem "kt litouch: $(tail -n 1 "$d/touches.txt"), $ups lifts (expected 9 touches, each lifted, none open, no error)"
    near "$downs" "45 50 30 30 40 30 30 70 45 70 45 50 55 50 45 50 45 50" 0.5 \
      || problem "the touches began at '$downs' (expected P1, T1, T2, S1, S2, then P1 P2, P1, P1: 45 50 30 30 40 30 30 70 45 70 45 50 55 50 45 50 45 50, ± 0.5 %)"
    near "$lasts" "27 50 30 30 40 30 30 40 45 40 27 50 73 50 27 50 27 50" 0.5 \
      || problem "the touches ended at '$lasts' (expected 27 50 30 30 40 30 30 40 45 40 27 50 73 50 27 50 27 50, ± 0.5 %: P's first finger whole, to its lift)"
    [ "$m1" = 1 ] && [ "$m4" = 3 ] \
      || problem "/metrics: transitiond_touches_withheld_total{reason=\"block\"} '$m1' after round 1, '$m4' at the end (expected 1 and 3)"
    # hello's filter: the config's (no regions), the UI's region, the config's.
    config_filter='"filter":{"hold":0.08,"block":["pinch"]}'
    grep -qF "$config_filter" "$d/session.out" \
      || problem "the session's hello has '$(grep -o '"filter":{.*' "$d/session.out" | head -n 1 | cut -c1-200)' (expected $config_filter)"
    grep -qF "\"filter\":{\"hold\":0.08,\"block\":[\"pinch\"],\"regions\":[$region]}" "$d/hello-set.txt" \
      || problem "another client's hello while the region was set has '$(grep -o '"filter":{.*' "$d/hello-set.txt" | cut -c1-200)' (expected \"regions\":[$region] in it)"
    grep -qF "$config_filter" "$d/hello-back.txt" \
      || problem "a client's hello once the regions' client had gone has '$(grep -o '"filter":{.*' "$d/hello-back.txt" | cut -c1-200)' (expected $config_filter)"
    bugs=$(grep -ci 'bug' "$d/libinput.txt")
    [ "$bugs" = 0 ] || problem "$bugs lines of libinput's about a bug (expected none)"
  fi
  if [ -z "$bl_problem" ]; then
    pass filter-block "libinput $(libinput --version) on the copy $copy of a panel with block = [\"pinch\"]: $(tail -n 1 "$d/touches.txt"), begun at $downs(% of the screen: P's first finger alone to $(sed -n 's/^touch 1: .* x1=\([0-9.]*\) y1=\([0-9.]*\) .*/\1 \2/p' "$d/touches.txt"), T's two, S's two; then with filter_regions block [] P's two; after null P's first; after the client went P's first); touches ended after each round: $r1 $r2 $r3 $r4; withheld for block on /metrics: $m1 after round 1, $m4 at the end; replies: $(grep -c '"type":"ok","cmd":"filter_regions"' "$d/session.out") ok ($(awk -v a="$t_bl" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }') s)"
  else
    fail filter-block "$bl_problem"
    show touches "$d/touches.txt" 20; grep -v -E 'TOUCH_(MOTION|FRAME)' "$d/libinput.txt" > "$d/li-short.txt"; show libinput "$d/li-short.txt" 40
    show libinput-stderr "$d/libinput.err" 10; show session "$d/session.out" 10; show session-stderr "$d/session.err" 5
    show daemon "$d/daemon.log" 30; show player "$d/player1.log" 5
  fi
  kill "$daemon" 2>/dev/null; wait "$daemon" 2>/dev/null
  exec 3>&- 4>&-
  [ "$socket_was" != active ] || systemctl start transitiond.socket
fi

# The docs' blocks no check above ran (a new one, or with --checks
# compositor those of the systemd checks): run with --checks systemd, each
# must exit 0.
if want systemd; then
  for ex in $(cat "$EX/list"); do
    case "$examples_run" in *" $ex "*) continue ;; esac
    run_example "$ex"
    if example_ran; then
      pass "$ex_where" "exit 0 in $ex_seconds s (no check here of what it does)"
    fi
  done
fi

# 7. The exposure of the running unit, and what the journal shows.
info "$(systemd-analyze security transitiond.service 2>/dev/null | grep 'Overall exposure')"
info "journalctl -u transitiond (one gesture, one reload, the restarts):"
journalctl -u transitiond.service --no-pager -o short-monotonic > /tmp/journal-full.txt 2>&1
show journal /tmp/journal-full.txt 60
finish
