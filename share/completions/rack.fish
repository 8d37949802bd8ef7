function __rack_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __rack_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __rack_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __rack_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __rack_parse_tokens -S
    set -l unparsed_tokens (__rack_tokens -pc)
    switch $unparsed_tokens[1]
    case 'rack'
        __rack_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'run'
            __rack_parse_subcommand 0 'name=' 'osc-port=' 'osc-host=' 'allow=+' 'file=' 'preset=' 'connect' 'record=' 'no-midi' 'midi-channel=' 'http-port=' 'http-host=' 'no-advertise' 'no-browse' 'media-dir=+' 'version' 'h/help'
        case 'render'
            __rack_parse_subcommand 2 'preset=' 'set=+' 'automation=' 'tail=' 'rate=' 'block=' 'format=' 't/type=' 'version' 'h/help'
        case 'presets'
            __rack_parse_subcommand -r 2 'version' 'h/help'
        case 'check'
            __rack_parse_subcommand 1 'length=' 'strict' 'version' 'h/help'
        case 'send'
            __rack_parse_subcommand 1 'to=' 'lead=' 'version' 'h/help'
        case 'plot'
            __rack_parse_subcommand 1 'o/output=' 'response' 'decay' 'length=' 'rate=' 'preset=+' 'set=+' 'version' 'h/help'
        case 'demo-loop'
            __rack_parse_subcommand 1 'version' 'h/help'
        case 'lv2-ttl'
            __rack_parse_subcommand 1 'version' 'h/help'
        case 'help'
            __rack_parse_subcommand -r 1 'version'
        end
    end
end

function __rack_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __rack_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __rack_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __rack_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__rack_tokens -p)
    if test -z "$(__rack_tokens -t)"
        set -l index (count (__rack_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'rack' -f
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack" version' -l 'version' -d 'Show the version.'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'rack' -n '__rack_should_offer_completions_for_positional "rack" -eq 1' -fa 'run' -d 'Join the running JACK server and serve OSC (the live rack).'
complete -c 'rack' -n '__rack_should_offer_completions_for_positional "rack" -eq 1' -fa 'render' -d 'Render a file through the rack offline (no JACK server needed).'
complete -c 'rack' -n '__rack_should_offer_completions_for_positional "rack" -eq 1' -fa 'presets' -d 'List factory and user presets, or show one as JSON.'
complete -c 'rack' -n '__rack_should_offer_completions_for_positional "rack" -eq 1' -fa 'check' -d 'Validate an automation file; every problem is reported with its line number.'
complete -c 'rack' -n '__rack_should_offer_completions_for_positional "rack" -eq 1' -fa 'send' -d 'Play an automation file live to a running rack, as OSC bundles with timetags.'
complete -c 'rack' -n '__rack_should_offer_completions_for_positional "rack" -eq 1' -fa 'plot' -d 'Draw an automation file\'s parameters over time, the filter\'s response or the reverb\'s decay, as SVG or PNG.'
complete -c 'rack' -n '__rack_should_offer_completions_for_positional "rack" -eq 1' -fa 'demo-loop' -d 'Write the synthesised demo loop that `rack run` plays without --file.'
complete -c 'rack' -n '__rack_should_offer_completions_for_positional "rack" -eq 1' -fa 'lv2-ttl' -d 'Write the LV2 plugin\'s .ttl files (manifest, ports, factory presets) into a directory.'
complete -c 'rack' -n '__rack_should_offer_completions_for_positional "rack" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack run" name' -l 'name' -d 'JACK client name (JACK renames it if taken; the real name is printed).' -rfka ''
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack run" osc-port' -l 'osc-port' -d 'UDP port for OSC (default 8000, or one the system chooses if 8000 is taken; 0: the system chooses; the port is printed).' -rfka ''
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack run" osc-host' -l 'osc-host' -d 'Address to bind OSC to. Anything but loopback exposes the rack to the network.' -rfka ''
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack run"' -l 'allow' -d 'Only obey OSC, HTTP and WebSocket clients from this address or CIDR range (repeatable; loopback only if listed; others are dropped without a reply).' -rfka ''
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack run" file' -l 'file' -d 'Audio file to play (wav, flac, ogg; resampled to the JACK rate).' -rfka ''
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack run" preset' -l 'preset' -d 'Preset to start with (name or number; user presets are negative).' -rfka '(__rack_custom_completion ---completion run -- --preset (count (__rack_tokens -pc)) (__rack_tokens -tC))'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack run" connect' -l 'connect' -d 'Connect outputs to the physical playback ports and inputs from capture.'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack run" record' -l 'record' -d 'Write the state at the start and every applied change to this automation file (rack render FILE OUT --automation IT replays the session).' -rfka ''
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack run" no-midi' -l 'no-midi' -d 'Leave out the MIDI ports (midi_in, midi_out).'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack run" midi-channel' -l 'midi-channel' -d 'Obey MIDI on this channel only (1…16; omni by default).' -rfka ''
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack run" http-port' -l 'http-port' -d 'TCP port for OSCQuery, its WebSocket and the web page at /ui/ (default 8001, or one the system chooses if 8001 is taken; 0: the system chooses; the URL is printed).' -rfka ''
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack run" http-host' -l 'http-host' -d 'Address to bind HTTP to. Anything but loopback exposes the rack to the network.' -rfka ''
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack run" no-advertise' -l 'no-advertise' -d 'Do not advertise OSCQuery (_oscjson._tcp) and OSC (_osc._udp) over DNS-SD through Avahi (advertised by default when an Avahi daemon runs and the socket is not bound to loopback).'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack run" no-browse' -l 'no-browse' -d 'Do not browse DNS-SD for the other racks on the network (the web page\'s "Racks in this studio"; browsed by default when an Avahi daemon runs).'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack run"' -l 'media-dir' -d 'Senders other than 127.0.0.1 may load files from this directory only (repeatable).' -rfka ''
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack run" version' -l 'version' -d 'Show the version.'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack run" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack render" preset' -l 'preset' -d 'Start from this preset (name or number; user presets are negative).' -rfka '(__rack_custom_completion ---completion render -- --preset (count (__rack_tokens -pc)) (__rack_tokens -tC))'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack render"' -l 'set' -d 'Set a parameter at the start (after --preset), e.g. cutoff=800 or room=plate. Repeatable.' -rfka '(__rack_custom_completion ---completion render -- --set (count (__rack_tokens -pc)) (__rack_tokens -tC))'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack render" automation' -l 'automation' -d 'Automation file to play during the render.' -rfka ''
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack render" tail' -l 'tail' -d 'Seconds of reverb tail added after the input ends (default: 0).' -rfka ''
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack render" rate' -l 'rate' -d 'Render sample rate in Hz (default: the automation file\'s rate line, else the input\'s).' -rfka ''
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack render" block' -l 'block' -d 'Frames per render call (offline the engine renders in large blocks; the result does not depend on it).' -rfka ''
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack render" format' -l 'format' -d 'Output sample format: 16, 24 or float (default: the input\'s).' -rfka '16 24 float'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack render" t type' -s 't' -l 'type' -d 'Container written to standard output (output -): wav, flac, ogg or mp3.' -rfka 'wav flac ogg mp3'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack render" version' -l 'version' -d 'Show the version.'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack render" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack presets" version' -l 'version' -d 'Show the version.'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack presets" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack check" length' -l 'length' -d 'Length of the input in seconds, to flag events and ramps past its end.' -rfka ''
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack check" strict' -l 'strict' -d 'Treat warnings (interrupted ramps, clamped values, events past the end) as errors.'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack check" version' -l 'version' -d 'Show the version.'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack check" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack send" to' -l 'to' -d 'Where the rack listens (HOST:PORT).' -rfka ''
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack send" lead' -l 'lead' -d 'How far ahead of its time each bundle is sent, in seconds.' -rfka ''
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack send" version' -l 'version' -d 'Show the version.'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack send" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack plot" o output' -l 'output' -s 'o' -d 'Picture to write: .svg, or .png (needs rsvg-convert).' -rfka ''
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack plot" response' -l 'response' -d 'Draw the low-pass filter\'s magnitude response instead of a timeline.'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack plot" decay' -l 'decay' -d 'Draw the reverb\'s decay time per octave band instead of a timeline.'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack plot" length' -l 'length' -d 'Length of the input in seconds: marks its end; flags events and ramps past it.' -rfka ''
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack plot" rate' -l 'rate' -d 'Sample rate in Hz that events and ramps are placed on (default: 48000).' -rfka ''
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack plot"' -l 'preset' -d 'Timeline: start from this preset. Response, decay: a curve for this preset (repeatable).' -rfka '(__rack_custom_completion ---completion plot -- --preset (count (__rack_tokens -pc)) (__rack_tokens -tC))'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack plot"' -l 'set' -d 'Set a parameter (after --preset), e.g. cutoff=800, resonance=12, room=plate. Repeatable.' -rfka '(__rack_custom_completion ---completion plot -- --set (count (__rack_tokens -pc)) (__rack_tokens -tC))'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack plot" version' -l 'version' -d 'Show the version.'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack plot" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack demo-loop" version' -l 'version' -d 'Show the version.'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack demo-loop" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack lv2-ttl" version' -l 'version' -d 'Show the version.'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack lv2-ttl" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'rack' -n '__rack_should_offer_completions_for_flags_or_options "rack help" version' -l 'version' -d 'Show the version.'
