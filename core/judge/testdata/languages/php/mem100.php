<?php
[$a, $b] = array_map('intval', explode(' ', trim(fgets(STDIN))));
$s = str_repeat('x', 100 << 20);
echo $a + $b + strlen($s) - (100 << 20), "\n";
