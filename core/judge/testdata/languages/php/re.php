<?php
[$a, $b] = array_map('intval', explode(' ', trim(fgets(STDIN))));
throw new RuntimeException("no answer for $a $b");
