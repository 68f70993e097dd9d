{-# LANGUAGE BangPatterns #-}
-- A strict loop that never ends (and never blackholes, which GHC would report as <<loop>>).
spin :: Int -> Int
spin !x = if x == -1 then x else spin ((x * 31 + 7) `mod` 1000003)

main :: IO ()
main = do
  [a, b] <- map read . words <$> getLine :: IO [Integer]
  print (a + b + fromIntegral (spin 0))
