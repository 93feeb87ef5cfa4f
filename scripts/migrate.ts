import { migratePostgres } from "@/db/migrate";
import { config } from "@/lib/config";

const url = config().databaseUrl;
if (!url) {
  console.log("DATABASE_URL is not set: the embedded database migrates itself when the app starts.");
} else {
  await migratePostgres(url);
  console.log("Migrations applied.");
}
