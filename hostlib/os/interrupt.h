// Ctrl-C and SIGTERM: the first one sets a flag that long-running loops poll
// (a run then stops between samples, records itself as "interrupted" and
// restores host knobs); a second one exits at once with 130.
#pragma once

namespace kvmbench::host {

void install_interrupt_handlers();
bool interrupted();

// Called from the signal handler just before a second interrupt exits the
// process (so it must be async-signal-safe): knobs.cpp writes the old host
// settings back here. One hook; nullptr removes it.
void set_second_interrupt_hook(void (*hook)() noexcept);

}  // namespace kvmbench::host
