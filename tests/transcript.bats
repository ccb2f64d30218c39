#!/usr/bin/env bats
# scripts/transcript.sh, which heads every record in docs/results/: where and
# when a command ran, at which commit, and how it ended.

setup() {
    load helper
    T=$BATS_TEST_TMPDIR/tree
    mkdir -p "$T"
    cp "$REPO/scripts/transcript.sh" "$T/"
    git -C "$T" init -q
    git -C "$T" -c user.name=t -c user.email=t@t add transcript.sh
    git -C "$T" -c user.name=t -c user.email=t@t commit -q -m one
    HEAD_SHORT=$(git -C "$T" rev-parse --short HEAD)
}

@test "a transcript holds the command, the machine, the commit, the output, the exit status and the wall time" {
    cd "$T"
    run ./transcript.sh out.txt sh -c 'echo hello; exit 3'
    assert_failure 3
    assert_output 'hello'
    run cat out.txt
    assert_line --index 0 "# \$ sh -c echo hello; exit 3"
    assert_line --regexp '^# GPU: '
    assert_line --regexp '^# date: [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2} UTC$'
    assert_line "# commit: $HEAD_SHORT"
    assert_line 'hello'
    assert_line --regexp '^# exit status: 3; wall time: [0-9]+ s$'
}

@test "a tree that differs from its commit says so; COMMIT names the commit instead" {
    cd "$T"
    echo '# changed' >>transcript.sh
    run ./transcript.sh out.txt true
    assert_success
    run grep '^# commit:' out.txt
    assert_output "# commit: $HEAD_SHORT, with uncommitted changes"
    COMMIT=abc1234 run ./transcript.sh out.txt true
    run grep '^# commit:' out.txt
    assert_output '# commit: abc1234'
}

@test "a changed record in docs/results does not mark the next transcript as uncommitted" {
    cd "$T"
    mkdir -p docs/results
    echo one >docs/results/a.txt
    git -c user.name=t -c user.email=t@t add docs/results/a.txt
    git -c user.name=t -c user.email=t@t commit -q -m two
    echo changed >docs/results/a.txt
    run ./transcript.sh out.txt true
    assert_success
    run grep '^# commit:' out.txt
    assert_output "# commit: $(git rev-parse --short HEAD)"
    echo '# changed' >>transcript.sh
    run ./transcript.sh out.txt true
    run grep '^# commit:' out.txt
    assert_output "# commit: $(git rev-parse --short HEAD), with uncommitted changes"
}
